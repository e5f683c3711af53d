// A stand-in on the `metrics` branch only: 0023 is another branch's migration, and the loader
// refuses a gap before this branch's 0024. Drop this file when merging that branch's 0023.
export default `SELECT 1;`;
