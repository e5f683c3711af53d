// Payment links, the price catalogue they draw on, and uploaded cover photos.
import { randomUUID } from 'node:crypto';
import type { Account } from '../domain/account.ts';
import { NotFound } from '../domain/errors.ts';
import type { Link, Price } from './rules.ts';
import type { ProductStore } from '../products/store.ts';
import type { Database, Row, Sql } from '../storage/db.ts';

const linkOf = (r: Row): Link => ({
  ...(r.doc as Omit<Link, 'id' | 'merchantId' | 'mode' | 'type' | 'slug' | 'isActive' | 'createdMs' | 'updatedMs'>),
  id: r.id as string,
  merchantId: r.merchant_id as string,
  mode: r.mode as string,
  type: r.type as Link['type'],
  slug: r.slug as string,
  isActive: r.is_active as boolean,
  createdMs: Number(r.created_ms),
  updatedMs: Number(r.updated_ms),
});

const docOf = (link: Link) => {
  const { id: _i, merchantId: _m, mode: _o, type: _t, slug: _s, isActive: _a, createdMs: _c, updatedMs: _u, ...doc } = link;
  return JSON.stringify(doc);
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface StoredFile {
  contentType: string;
  data: Uint8Array;
}

export class LinkStore {
  constructor(
    private readonly db: Database,
    private readonly products: Pick<ProductStore, 'cartPrices'>,
  ) {}

  async save(link: Link, sql: Sql = this.db): Promise<void> {
    await sql.query(
      `INSERT INTO links (id, merchant_id, mode, type, slug, is_active, doc, created_ms, updated_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (id) DO UPDATE SET is_active = $6, doc = $7, updated_ms = $9`,
      [link.id, link.merchantId, link.mode, link.type, link.slug, link.isActive, docOf(link), link.createdMs, link.updatedMs],
    );
  }

  /** A link by id or slug, whoever owns it (the hosted pages and payments check the owner). */
  async find(idOrSlug: string): Promise<Link | undefined> {
    const [row] = UUID.test(idOrSlug)
      ? await this.db.query('SELECT * FROM links WHERE id = $1', [idOrSlug])
      : await this.db.query('SELECT * FROM links WHERE slug = $1', [idOrSlug]);
    return row && linkOf(row);
  }

  /** The account's own link, or NotFound. */
  async own(account: Pick<Account, 'merchant' | 'mode'>, idOrSlug: string): Promise<Link> {
    const link = await this.find(idOrSlug);
    if (!link || link.merchantId !== account.merchant.id || link.mode !== account.mode) throw new NotFound(`No payment link ${idOrSlug}`);
    return link;
  }

  /**
   * A page of the account's links, newest first: `size` and one more (which says a page
   * follows), from the spec's `page` or below a cursor's (created, id); with how many there are
   * and how many stand above the page (which page it is).
   */
  async list(account: Pick<Account, 'merchant' | 'mode'>, size: number, from: { page: number } | { after: { createdMs: number; id: string } }) {
    const owner = [account.merchant.id, account.mode];
    const [{ count }] = await this.db.query<{ count: string }>('SELECT count(*) AS count FROM links WHERE merchant_id = $1 AND mode = $2', owner);
    if ('page' in from) {
      const rows = await this.db.query('SELECT * FROM links WHERE merchant_id = $1 AND mode = $2 ORDER BY created_ms DESC, id DESC LIMIT $3 OFFSET $4', [
        ...owner,
        size + 1,
        (from.page - 1) * size,
      ]);
      return { links: rows.map(linkOf), count: Number(count), above: (from.page - 1) * size };
    }
    const after = [from.after.createdMs, from.after.id];
    const rows = await this.db.query(
      'SELECT * FROM links WHERE merchant_id = $1 AND mode = $2 AND (created_ms, id) < ($3, $4) ORDER BY created_ms DESC, id DESC LIMIT $5',
      [...owner, ...after, size + 1],
    );
    const [{ above }] = await this.db.query<{ above: string }>(
      'SELECT count(*) AS above FROM links WHERE merchant_id = $1 AND mode = $2 AND (created_ms, id) >= ($3, $4)',
      [...owner, ...after],
    );
    return { links: rows.map(linkOf), count: Number(count), above: Number(above) };
  }

  async nextLineId(): Promise<number> {
    const [row] = await this.db.query(`SELECT nextval('cart_line_ids') AS id`);
    return Number(row.id);
  }

  /** The prices a cart may take (every price without an account: tests): the products' store's, whose tables they are. */
  prices(account?: Pick<Account, 'merchant' | 'mode'>): Promise<Map<string, Price>> {
    return this.products.cartPrices(account);
  }

  async addFile(account: Pick<Account, 'merchant'>, contentType: string, data: Uint8Array, nowMs: number): Promise<string> {
    const id = randomUUID();
    await this.db.query('INSERT INTO files (id, merchant_id, content_type, data, created_ms) VALUES ($1, $2, $3, $4, $5)', [
      id,
      account.merchant.id,
      contentType,
      data,
      nowMs,
    ]);
    return id;
  }

  async file(id: string): Promise<StoredFile | undefined> {
    if (!UUID.test(id)) return undefined;
    const [row] = await this.db.query('SELECT content_type, data FROM files WHERE id = $1', [id]);
    return row && { contentType: row.content_type as string, data: row.data as Uint8Array };
  }
}
