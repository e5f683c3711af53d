// Where rates come from: an HTTP JSON service of the operator's choice (URL + where each rate is
// in its answer), the operator's fixed table (marked fixed in every quote), and, for tests, a
// fake (server/testing/rates.ts). Each answers a RateSnapshot; the cache keeps them.
import type { CoinSymbol, Currency } from '../../contract/fields.ts';
import { rateUnits, snapshotFromJson, type RateProvider, type RateSnapshot, type ResponseMapping } from '../domain/rates.ts';

/** At most this much of a provider's answer is read. */
const MAX_BYTES = 1 << 20;

/**
 * An HTTP JSON provider: GET `url`, read each rate where `mapping` says. A wrong status, a body
 * that is not JSON, too large, or a mapped rate missing: the fetch fails, naming what, and the
 * rates it had keep ageing (a quote refuses them once stale).
 */
export function httpJsonProvider(url: string, mapping: ResponseMapping, headers: Record<string, string> = {}): RateProvider {
  const name = new URL(url).origin + new URL(url).pathname; // never the query: it may hold an API key
  return {
    name,
    fixed: false,
    async fetch(signal) {
      const response = await fetch(url, { signal, headers: { accept: 'application/json', ...headers }, redirect: 'error' });
      if (!response.ok) throw new Error(`${name} answered ${response.status}`);
      const text = await response.text();
      if (text.length > MAX_BYTES) throw new Error(`${name} answered more than ${MAX_BYTES} bytes`);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new Error(`${name} answered something that is not JSON`);
      }
      const { snapshot, problems } = snapshotFromJson(json, mapping);
      if (problems.length) throw new Error(`${name}: ${problems.join('; ')}`);
      return snapshot;
    },
  };
}

/** The operator's own table, as decimal text: explicit, never stale, and marked fixed in every quote. */
export function fixedTable(
  table: { fiat?: Partial<Record<Currency, string>>; coins?: Partial<Record<CoinSymbol, string>> },
  name = 'fixed table',
): RateProvider {
  const snapshot: RateSnapshot = { fiat: {}, coins: {} };
  for (const [currency, text] of Object.entries(table.fiat ?? {})) {
    const units = rateUnits(text);
    if (units === undefined) throw new Error(`${name}: ${currency}: expected a positive decimal such as "0.92", received ${JSON.stringify(text)}`);
    snapshot.fiat[currency as Currency] = units;
  }
  for (const [coin, text] of Object.entries(table.coins ?? {})) {
    const units = rateUnits(text);
    if (units === undefined) throw new Error(`${name}: ${coin}: expected a positive decimal such as "1", received ${JSON.stringify(text)}`);
    snapshot.coins[coin as CoinSymbol] = units;
  }
  return { name, fixed: true, fetch: async () => snapshot };
}
