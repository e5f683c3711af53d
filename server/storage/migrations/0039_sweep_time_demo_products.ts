// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 36's leftovers (reserved as migration 0041; numbered after the last one on this branch,
// since the loader refuses gaps).
// `chain_transfers.swept_ms`: the time of the block a sweep was mined in (epoch ms), so a
// payment's timeline says when its money left the deposit; null for sweeps recorded before.
// The demo's seeded catalogue was prices of no merchant (offered to every merchant's cart and
// on no Products screen): they become the demo merchant's test-mode products, where it exists.
export default `
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS swept_ms bigint;
  INSERT INTO products (id, merchant_id, mode, name, description, archived, created_ms, updated_ms)
    SELECT DISTINCT ON ((p.product ->> 'id')::uuid) (p.product ->> 'id')::uuid, m.id, 'test', p.product ->> 'name', COALESCE(p.product ->> 'description', ''), false, 0, 0
      FROM prices p JOIN merchants m ON m.id = '2b1f6c3e-8d4a-4f7e-9c1b-5a6d7e8f9a0b'
     WHERE p.merchant_id IS NULL
    ON CONFLICT (id) DO NOTHING;
  UPDATE prices SET merchant_id = '2b1f6c3e-8d4a-4f7e-9c1b-5a6d7e8f9a0b', mode = 'test', product_id = (product ->> 'id')::uuid, created_ms = 0
   WHERE merchant_id IS NULL AND EXISTS (SELECT 1 FROM products pr WHERE pr.id = (prices.product ->> 'id')::uuid AND pr.merchant_id = '2b1f6c3e-8d4a-4f7e-9c1b-5a6d7e8f9a0b');
  `;
