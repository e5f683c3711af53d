// listOf: the browser's list schema (instead of z.array). It must read like zod's own: each item
// checked and kept as its parsed output, a bad item named by its index, anything else refused.
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { fieldErrors } from './field-errors.ts';
import { int, listOf, text } from './fields.ts';
import { CoinsResponse, ErrorBody } from './schemas.ts';

const Item = z.object({ name: text, size: int });
const List = listOf(Item);

describe('listOf', () => {
  it('keeps each item as its parsed output: keys the item does not name are dropped', () => {
    expect(
      List.parse([
        { name: 'a', size: 1, extra: true },
        { name: 'b', size: 2 },
      ]),
    ).toEqual([
      { name: 'a', size: 1 },
      { name: 'b', size: 2 },
    ]);
    expect(List.parse([])).toEqual([]);
  });

  it('names a bad item by its index and field, inside the object that holds the list', () => {
    const data = { data: [{ name: 'a', size: 1 }, { name: 'b', size: 'big' }, { size: 3 }] };
    const result = z.object({ data: List }).safeParse(data, { reportInput: true });
    expect(result.success).toBe(false);
    expect(fieldErrors(result.error!)).toEqual([
      { field: 'data.1.size', message: 'expected a whole number, received "big"' },
      { field: 'data.2.name', message: 'expected text, received nothing' },
    ]);
    // As with zod's own schemas, what was received is reported only when asked for.
    expect(z.object({ data: List }).safeParse(data).error!.issues[0]).not.toHaveProperty('input');
  });

  it('refuses what is not a list, without looking inside it', () => {
    for (const value of [undefined, null, 'a', 5, { 0: { name: 'a', size: 1 }, length: 1 }]) {
      const result = List.safeParse(value);
      expect(result.success).toBe(false);
      expect(result.error!.issues).toMatchObject([{ path: [], message: 'a list' }]);
    }
  });

  it('is what the coin list and the error body read', () => {
    const coin = { symbol: 'USDT', name: 'Tether', network: 'testnet', chainId: 31337, contractAddress: '0x' + '1'.repeat(40), decimals: 6, status: 'active' };
    const coins = CoinsResponse.safeParse({ status: 'success', statusCode: 200, data: [coin, { ...coin, decimals: -1 }] });
    expect(coins.success).toBe(false);
    expect(fieldErrors(coins.error!)[0]!.field).toBe('data.1.decimals');
    const error = ErrorBody.parse({ status: 'error', statusCode: 422, message: 'no', errors: [{ field: 'amount', message: 'bad', more: 1 }] });
    expect(error.errors).toEqual([{ field: 'amount', message: 'bad' }]);
  });
});
