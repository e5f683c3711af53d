// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// A stand-in for migration 0035, reserved by another branch (the loader refuses a gap); dropped at the merge.
export default `SELECT 1;`;
