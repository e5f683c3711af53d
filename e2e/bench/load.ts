// A bounded load on the stub API from this process, the API running in its own process:
// `clients` concurrent keep-alive clients, `total` requests in all, latency per request.
import { Agent, request } from 'node:http';
import { summarize, type Summary } from './stats.ts';

export interface LoadResult extends Summary {
  perSecond: number;
  errors: number;
  /** Answers by status code, for a bench that must say what went wrong. */
  statuses: Record<number, number>;
}

/** A secret key goes in Authorization, as a merchant's server sends it; a public key in x-api-key. */
const keyHeaders = (key: string): Record<string, string> => (key.startsWith('sk_') ? { authorization: `Bearer ${key}` } : { 'x-api-key': key });

function send(agent: Agent, url: URL, method: string, key: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, agent, headers: { ...keyHeaders(key), ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function load(
  apiUrl: string,
  key: string,
  call: (i: number) => { method: string; path: string; body?: unknown },
  { clients, total = Infinity, seconds = Infinity }: { clients: number; total?: number; seconds?: number },
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const statuses: Record<number, number> = {};
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < total && performance.now() < until) {
        const { method, path, body } = call(next++);
        const t0 = performance.now();
        const status = await send(agent, new URL(path, apiUrl), method, key, body === undefined ? undefined : JSON.stringify(body)).catch(() => 0);
        latencies.push(performance.now() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status < 200 || status >= 300) errors++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return { ...summarize(latencies), perSecond: latencies.length / elapsed, errors, statuses };
}
