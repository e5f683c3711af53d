// A stand-in on the `chain33` branch only: 0029 is another branch's migration, and the loader
// refuses a gap before this branch's 0030. Drop this file when merging that branch's 0029.
export default `SELECT 1;`;
