// A stand-in for the number another branch reserves (the team's tables are 0027): the lead drops
// this file at merge, where that branch's own migration takes the number.
export default `SELECT 1;`;
