// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 48: each restricted key belongs to a person, its maker (`holder`: 'owner' or the
// member's id, as second factors are held; NULL for a full key or one a full key made), so that
// removing a member revokes their keys and demoting one narrows them. Keys made before are given
// their maker from `created_by` (a key made by a key: that key's holder, down the whole chain of
// keys made by keys, by the recursive WITH: member, k1, k2, k3 all the member's).
export default `
  ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS holder text;
  UPDATE api_keys SET holder = CASE WHEN created_by::jsonb->>'kind' = 'member' THEN lower(created_by::jsonb->>'id') ELSE 'owner' END
    WHERE permissions IS NOT NULL AND holder IS NULL AND created_by IS NOT NULL AND created_by::jsonb->>'kind' IN ('member', 'owner');
  WITH RECURSIVE made (id, merchant_id, holder) AS (
      SELECT id, merchant_id, holder FROM api_keys WHERE permissions IS NOT NULL AND holder IS NOT NULL
    UNION
      SELECT k.id, k.merchant_id, m.holder FROM api_keys k JOIN made m ON m.id::text = k.created_by::jsonb->>'id' AND m.merchant_id = k.merchant_id
        WHERE k.permissions IS NOT NULL AND k.holder IS NULL AND k.created_by IS NOT NULL AND k.created_by::jsonb->>'kind' = 'key'
  )
  UPDATE api_keys k SET holder = made.holder FROM made WHERE k.id = made.id AND k.holder IS NULL;
  CREATE INDEX IF NOT EXISTS api_keys_holder ON api_keys (merchant_id, holder) WHERE holder IS NOT NULL;
`;
