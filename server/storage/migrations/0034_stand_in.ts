// Stand-in for another branch's migration number (the lead drops it at merge): refunds35 owns 0035 only.
export default 'SELECT 1';
