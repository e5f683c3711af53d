// The merchant's products and their prices. A price keeps a copy of its product's name and
// description (links' carts read prices); renaming a product
// renames its prices' copies in the same transaction. Archived products' prices are not
// offered to new carts (cartPrices, which LinkStore.prices asks).
import { randomUUID } from 'node:crypto';
import type { Account } from '../domain/account.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import type { Price, Product } from '../links/rules.ts';

export interface StoredPrice {
  id: string;
  productId: string;
  currency: string;
  amount: string;
  archived: boolean;
  createdMs: number;
}

export interface StoredProduct {
  id: string;
  name: string;
  description: string;
  archived: boolean;
  createdMs: number;
  updatedMs: number;
  prices: StoredPrice[];
}

/** Whose products: a merchant (its id is all a store needs) in a mode. */
type Owner = { merchant: Pick<Account['merchant'], 'id'>; mode: Account['mode'] };

const priceOf = (r: Row): StoredPrice => ({
  id: r.id as string,
  productId: r.product_id as string,
  currency: r.currency as string,
  amount: r.amount as string,
  archived: r.archived as boolean,
  createdMs: Number(r.created_ms),
});

export class ProductStore {
  constructor(private readonly db: Database) {}

  /**
   * The prices a cart may take: with an account its own prices in its mode, not archived, of
   * products not archived (the demo's seeded catalogue is its merchant's products). Without
   * one, every price (tests).
   */
  async cartPrices(account?: Pick<Account, 'merchant' | 'mode'>): Promise<Map<string, Price>> {
    const rows = account
      ? await this.db.query(
          `SELECT * FROM prices WHERE merchant_id = $1 AND mode = $2 AND NOT archived AND product_id IN (SELECT id FROM products WHERE merchant_id = $1 AND mode = $2 AND NOT archived)`,
          [account.merchant.id, account.mode],
        )
      : await this.db.query('SELECT * FROM prices');
    return new Map(
      rows.map((r) => [r.id as string, { id: r.id as string, currency: r.currency as string, amount: r.amount as string, product: r.product as Product }]),
    );
  }

  private async withPrices(sql: Sql, rows: Row[]): Promise<StoredProduct[]> {
    if (rows.length === 0) return [];
    const prices = (await sql.query(`SELECT * FROM prices WHERE product_id = ANY($1::uuid[]) ORDER BY seq`, [rows.map((r) => r.id)])).map(priceOf);
    return rows.map((r) => ({
      id: r.id as string,
      name: r.name as string,
      description: r.description as string,
      archived: r.archived as boolean,
      createdMs: Number(r.created_ms),
      updatedMs: Number(r.updated_ms),
      prices: prices.filter((p) => p.productId === r.id),
    }));
  }

  private async insertPrice(
    tx: Sql,
    owner: Owner,
    product: { id: string; name: string; description: string },
    price: { id?: string; currency: string; amount: string },
    nowMs: number,
  ): Promise<void> {
    await tx.query(
      `INSERT INTO prices (id, currency, amount, product, merchant_id, mode, product_id, archived, created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, false, $8) ON CONFLICT (id) DO NOTHING`,
      [
        price.id ?? randomUUID(),
        price.currency,
        price.amount,
        JSON.stringify({ id: product.id, name: product.name, description: product.description, coverPhoto: '' }),
        owner.merchant.id,
        owner.mode,
        product.id,
        nowMs,
      ],
    );
  }

  async create(
    owner: Owner,
    body: { name: string; description: string; prices: Array<{ currency: string; amount: string }> },
    nowMs: number,
  ): Promise<StoredProduct> {
    return this.db.transaction(async (tx) => {
      const product = { id: randomUUID(), name: body.name, description: body.description };
      await tx.query(
        `INSERT INTO products (id, merchant_id, mode, name, description, archived, created_ms, updated_ms) VALUES ($1, $2, $3, $4, $5, false, $6, $6)`,
        [product.id, owner.merchant.id, owner.mode, product.name, product.description, nowMs],
      );
      for (const price of body.prices) await this.insertPrice(tx, owner, product, price, nowMs);
      const [row] = await tx.query('SELECT * FROM products WHERE id = $1', [product.id]);
      return (await this.withPrices(tx, [row]))[0];
    });
  }

  /**
   * A product and its prices by fixed ids (the demo's seeded catalogue, server/service/seed.ts): made
   * the first time, left as it is (renamed, archived) every time after.
   */
  async seed(
    owner: Owner,
    product: { id: string; name: string; description: string },
    prices: Array<{ id: string; currency: string; amount: string }>,
    nowMs: number,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      const made = await tx.query(
        `INSERT INTO products (id, merchant_id, mode, name, description, archived, created_ms, updated_ms) VALUES ($1, $2, $3, $4, $5, false, $6, $6) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [product.id, owner.merchant.id, owner.mode, product.name, product.description, nowMs],
      );
      if (made.length) for (const price of prices) await this.insertPrice(tx, owner, product, price, nowMs);
    });
  }

  /** Newest first, after (created_ms, id) of the page before. */
  async list(owner: Owner, after: { createdMs: number; id: string } | undefined, limit: number): Promise<StoredProduct[]> {
    const rows = await this.db.query(
      `SELECT * FROM products WHERE merchant_id = $1 AND mode = $2 ${after ? 'AND (created_ms, id) < ($4, $5)' : ''} ORDER BY created_ms DESC, id DESC LIMIT $3`,
      after ? [owner.merchant.id, owner.mode, limit, after.createdMs, after.id] : [owner.merchant.id, owner.mode, limit],
    );
    return this.withPrices(this.db, rows);
  }

  async get(owner: Owner, id: string, sql: Sql = this.db): Promise<StoredProduct | undefined> {
    const rows = await sql.query('SELECT * FROM products WHERE merchant_id = $1 AND mode = $2 AND id = $3', [owner.merchant.id, owner.mode, id]);
    return (await this.withPrices(sql, rows))[0];
  }

  async update(
    owner: Owner,
    id: string,
    changes: { name?: string; description?: string; archived?: boolean },
    nowMs: number,
  ): Promise<StoredProduct | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query(
        `UPDATE products SET name = COALESCE($4, name), description = COALESCE($5, description), archived = COALESCE($6, archived), updated_ms = $7
          WHERE merchant_id = $1 AND mode = $2 AND id = $3 RETURNING *`,
        [owner.merchant.id, owner.mode, id, changes.name ?? null, changes.description ?? null, changes.archived ?? null, nowMs],
      );
      if (!row) return undefined;
      await tx.query(
        `UPDATE prices SET product = jsonb_set(jsonb_set(product, '{name}', to_jsonb($2::text)), '{description}', to_jsonb($3::text)) WHERE product_id = $1`,
        [id, row.name, row.description],
      );
      return this.get(owner, id, tx);
    });
  }

  /** A new price for a product of the owner's; undefined when there is no such product. */
  async addPrice(owner: Owner, productId: string, price: { currency: string; amount: string }, nowMs: number): Promise<StoredPrice | undefined> {
    return this.db.transaction(async (tx) => {
      const [product] = await tx.query('SELECT * FROM products WHERE merchant_id = $1 AND mode = $2 AND id = $3 FOR UPDATE', [
        owner.merchant.id,
        owner.mode,
        productId,
      ]);
      if (!product) return undefined;
      await this.insertPrice(tx, owner, { id: productId, name: product.name as string, description: product.description as string }, price, nowMs);
      const [row] = await tx.query('SELECT * FROM prices WHERE product_id = $1 ORDER BY seq DESC LIMIT 1', [productId]);
      return priceOf(row);
    });
  }

  async price(owner: Owner, id: string): Promise<StoredPrice | undefined> {
    const [row] = await this.db.query(
      `SELECT pr.*, (pr.archived OR p.archived) AS archived FROM prices pr JOIN products p ON p.id = pr.product_id WHERE pr.merchant_id = $1 AND pr.mode = $2 AND pr.id = $3`,
      [owner.merchant.id, owner.mode, id],
    );
    return row && priceOf(row);
  }
}
