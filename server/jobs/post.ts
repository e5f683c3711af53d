// One POST to a merchant's URL, on the terms a webhook sender must keep: the host's
// addresses are checked after DNS resolution and at connect time (never a private,
// link-local or metadata address; loopback only for test keys), redirects are answers and
// never followed, at most 64 KiB of the answer is read, and the whole exchange is bounded
// by a timeout and an abort signal. node:http(s) rather than fetch, for the lookup hook.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';

const MAX_ANSWER_BYTES = 64 * 1024;

const never = new BlockList();
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['192.0.0.0', 24], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  never.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [['fc00::', 7], ['fe80::', 10], ['::', 128], ['ff00::', 8], ['64:ff9b::', 96]] as const) never.addSubnet(net, prefix, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Why an address may not receive webhooks in `mode`, or undefined when it may. */
export function addressProblem(address: string, mode: 'test' | 'live'): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (loopback.check(ip, family)) return mode === 'test' ? undefined : `${address} is this machine: loopback is for test keys only`;
  if (never.check(ip, family)) return `${address} is a private, link-local or reserved address`;
  return undefined;
}

export interface PostResult {
  status: number;
  error: string | null;
}

export function post(url: string, body: string, headers: Record<string, string>, options: { mode: 'test' | 'live'; timeoutMs: number; signal: AbortSignal }): Promise<PostResult> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const problem = addressProblem(host, options.mode);
      if (problem) return done({ status: 0, error: `refused: ${problem}` });
    }
    // Checked at connect time, on the addresses the connection will actually use.
    const lookup: RequestOptions['lookup'] = (hostname, lookupOptions, callback) => {
      dnsLookup(hostname, { ...lookupOptions, all: true }, (error, addresses: LookupAddress[]) => {
        if (error) return callback(error, '', 4);
        const problem = addresses.map((a) => addressProblem(a.address, options.mode)).find(Boolean);
        if (problem) return callback(Object.assign(new Error(`refused: ${hostname} resolves to ${problem}`), { code: 'EREFUSED_ADDRESS' }), '', 4);
        if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      });
    };
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    // agent: false: a fresh connection each time, so every delivery passes the lookup above.
    const req = send(target, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, lookup, agent: false, signal: options.signal }, (res) => {
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
    });
    const timer = setTimeout(() => {
      done({ status: 0, error: `no answer in ${options.timeoutMs} ms` });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (error: Error) => done({ status: 0, error: options.signal.aborted ? 'service stopping' : error.message }));
    req.end(body);
  });
}
