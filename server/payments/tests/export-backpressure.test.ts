// The CSV export waits for the client (item 8): a page of rows is read from the
// database only once the page before has left (write() answered false: wait for 'drain'), so a
// client that stops reading holds one page, not up to 100,000 rows buffered in the service.
import { EventEmitter } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { exportCsv } from '../routes.ts';
import type { Ctx } from '../../api/context.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';

let api: Service;
beforeAll(async () => {
  api = await startService({ demo: true, jobs: false });
}, 120_000);
afterAll(() => api?.close());

/** A response whose client reads nothing until the test lets it: every write() answers false. */
class StalledResponse extends EventEmitter {
  destroyed = false;
  chunks: string[] = [];
  writeHead() {
    return this;
  }
  write(chunk: string) {
    this.chunks.push(chunk);
    return false;
  }
  end() {
    this.emit('finish');
  }
}

const settle = async () => {
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
};

it('reads the next page of payments only when the client has taken the last one', { timeout: 120_000 }, async () => {
  const made = await fetch(api.url + '/api/v1/transaction/initialize', {
    method: 'POST',
    headers: { authorization: `Bearer ${DEMO_MERCHANT.keys.test.secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ reference: 'csv-stall-1', coin: 'USDT', currency: 'USD', amount: 5 }),
  });
  expect(made.status).toBe(201);
  const account = { merchant: (await api.parts.merchants.byId(DEMO_MERCHANT.id!))!, mode: 'test' as const, via: 'secret' as const };
  const [row] = await api.parts.paymentList.list(account, { limit: 1 }, api.parts.now());
  // Pages of 1,000 rows, without end: without waiting, the export would read all 100 pages at once.
  let pages = 0;
  const paymentList = {
    list: async (_account: unknown, filter: { limit: number }) => {
      pages++;
      return Array.from({ length: filter.limit }, (_, i) => ({ ...row!, id: `${pages}-${i}` }));
    },
  };
  const res = new StalledResponse();
  const ctx = { query: new URLSearchParams(), res, account, service: { ...api.parts, paymentList } } as unknown as Ctx;
  const done = exportCsv(ctx);
  await settle();
  expect(pages).toBe(0); // the header line has not left yet
  res.emit('drain');
  await settle();
  expect(pages).toBe(1);
  expect(res.chunks).toHaveLength(2);
  res.emit('drain');
  await settle();
  expect(pages).toBe(2);
  // The client goes away: the export stops reading.
  res.destroyed = true;
  res.emit('close');
  await done;
  expect(pages).toBe(2);
});
