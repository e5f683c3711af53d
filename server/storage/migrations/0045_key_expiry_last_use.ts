// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 48 (reserved as migration 0050; numbered after the last one on this branch, since the
// loader refuses gaps): a restricted key's optional expiry (`expires_ms`: refused from then on),
// and when and from which client address it was last used (written at most once a minute per key).
export default `
  ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS expires_ms bigint;
  ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS last_used_ms bigint;
  ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS last_used_client text;
`;
