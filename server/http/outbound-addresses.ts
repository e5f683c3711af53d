// Where the service may send a request of its own (a webhook delivery): never a private,
// link-local, reserved or metadata address; loopback only for test keys, and only where the
// operator allows it (a developer's own instance). Used when a URL is registered (an address
// written in the URL) and again at connect time, after DNS.
import { BlockList, isIP } from 'node:net';

const never = new BlockList();
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['192.0.0.0', 24], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  never.addSubnet(net, prefix, 'ipv4');
}
// fec0::/10: site-local (deprecated, still routed on some networks); 2002::/16: 6to4, whose
// next 32 bits are an IPv4 address (127.x, 10.x…); ::/96: IPv4-compatible (::7f00:1).
for (const [net, prefix] of [['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['::', 96], ['ff00::', 8], ['64:ff9b::', 96], ['2002::', 16]] as const) never.addSubnet(net, prefix, 'ipv6');
const loopbackNet = new BlockList();
loopbackNet.addSubnet('127.0.0.0', 8, 'ipv4');
loopbackNet.addAddress('::1', 'ipv6');

/** Whether events of a `mode` account may go to this machine on this service, else why not. */
export const loopbackPolicy = (mode: 'test' | 'live', allowed: boolean): true | keyof typeof LOOPBACK_REFUSED => (mode === 'live' ? 'live' : allowed ? true : 'off');

/** An IPv4-mapped IPv6 address as its IPv4 form: ::ffff:10.0.0.1, and ::ffff:a00:1 as URL writes it. */
function unmapped(address: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (dotted) return dotted;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return address;
  const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Why a refused loopback address is refused, in the words the merchant reads. */
export const LOOPBACK_REFUSED = {
  live: 'loopback is for test keys only',
  off: 'this service sends no webhooks to its own machine (its operator has not set WEBHOOKS_TO_LOOPBACK=true)',
} as const;

/**
 * Why an address may not receive webhooks, or undefined when it may. `loopback`: whether this
 * machine may (test keys, where the operator allows it), else why not.
 */
export function addressProblem(address: string, loopback: true | keyof typeof LOOPBACK_REFUSED, named = true): string | undefined {
  const ip = unmapped(address);
  const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  // An address a host name resolved to is not named (named = false): the recorded error would
  // tell whoever set the URL what an internal name resolves to (a DNS oracle).
  const who = named ? address : 'an address that';
  if (loopbackNet.check(ip, family)) return loopback === true ? undefined : `${who} is this machine: ${LOOPBACK_REFUSED[loopback]}`;
  if (never.check(ip, family)) return `${who} is a private, link-local or reserved address`;
  return undefined;
}

