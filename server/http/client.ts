// Who a request is from, for rate limits. Behind the operator's reverse proxies (TRUST_PROXIES
// hops) every request arrives from a proxy: the client is the address the first of them saw,
// read from X-Forwarded-For, which each proxy appends to (entries further left are the
// client's own words, and never trusted). An IPv6 client counts by its /64: one home or phone
// network holds 2^64 addresses, and a new one per request would escape any per-address limit.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export function clientOf(req: IncomingMessage, trustProxies = 0): string {
  let address = req.socket.remoteAddress ?? 'unknown';
  if (trustProxies > 0) {
    const forwarded = String(req.headers['x-forwarded-for'] ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    // Some proxies write the client's port too: 203.0.113.7:51234, [2001:db8::1]:51234.
    const seen = forwarded[forwarded.length - trustProxies]?.replace(/^\[(.*)\](:\d+)?$/, '$1').replace(/^(\d+\.\d+\.\d+\.\d+):\d+$/, '$1');
    if (seen && isIP(seen.replace(/%.*$/, ''))) address = seen;
  }
  return networkOf(address.replace(/%.*$/, ''));
}

/** An IPv4 address (mapped or not) as itself; an IPv6 address as its /64. */
export function networkOf(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIP(address) !== 6) return address;
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
