// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 37's leftovers (reserved as migration 0039; numbered after the last one on this branch,
// since the loader refuses gaps). `api_keys.created_by`: who made a restricted key (the owner, a
// member or a key, as JSON of kind, id and label: no secret).
export default `
  ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS created_by text;
  `;
