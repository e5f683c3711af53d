// One POST to a merchant's URL, on the terms a webhook sender must keep: the host's
// addresses are checked after DNS resolution and at connect time (never a private,
// link-local or metadata address; loopback only for test keys), redirects are answers and
// never followed, at most 64 KiB of the answer is read, and the whole exchange is bounded
// by a timeout and an abort signal. node:http(s) rather than fetch, for the lookup hook.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { addressProblem, type LOOPBACK_REFUSED } from '../http/outbound-addresses.ts';

const MAX_ANSWER_BYTES = 64 * 1024;

export interface PostResult {
  status: number;
  error: string | null;
}

export function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: { loopback: true | keyof typeof LOOPBACK_REFUSED; timeoutMs: number; signal: AbortSignal },
): Promise<PostResult> {
  return new Promise((resolve) => {
    let settled = false;
    // Declared before done() can run: a refused address answers before any request is made.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const problem = addressProblem(host, options.loopback);
      if (problem) return done({ status: 0, error: `refused: ${problem}` });
    }
    // Checked at connect time, on the addresses the connection will actually use.
    const lookup: RequestOptions['lookup'] = (hostname, lookupOptions, callback) => {
      dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 4);
        const problem = addresses.map((a) => addressProblem(a.address, options.loopback, false)).find(Boolean);
        if (problem) return callback(Object.assign(new Error(`refused: ${hostname} resolves to ${problem}`), { code: 'EREFUSED_ADDRESS' }), '', 4);
        if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      });
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    // agent: false: a fresh connection each time, so every delivery passes the lookup above.
    const req = send(
      target,
      { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, lookup, agent: false, signal: options.signal },
      (res) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) {
            // Enough: the status is the answer; the rest of the body is not our business.
            done({ status: res.statusCode ?? 0, error: null });
            res.destroy();
          }
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, error: null }));
        res.on('error', () => done({ status: res.statusCode ?? 0, error: null }));
      },
    );
    timer = setTimeout(() => {
      done({ status: 0, error: `no answer in ${options.timeoutMs} ms` });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (error: Error) => done({ status: 0, error: options.signal.aborted ? 'service stopping' : error.message }));
    req.end(body);
  });
}
