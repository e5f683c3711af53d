// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- Products and their prices, the merchant's own (issue 23). The seeded catalogue's prices
  -- have no merchant and stay offered to every cart; a merchant's prices only to its own, and
  -- not once archived (or their product is). seq orders a product's prices as they were added.
  CREATE TABLE IF NOT EXISTS products (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    name text NOT NULL,
    description text NOT NULL DEFAULT '',
    archived boolean NOT NULL DEFAULT false,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS products_owner ON products (merchant_id, mode, created_ms DESC, id DESC);
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS merchant_id uuid REFERENCES merchants (id);
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS mode text;
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS product_id uuid REFERENCES products (id);
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS archived boolean NOT NULL DEFAULT false;
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS created_ms bigint;
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS seq bigserial;
  CREATE INDEX IF NOT EXISTS prices_product ON prices (product_id, seq);
  `;
