// Which IP addresses the service may send a request of its own to (a webhook delivery): the one
// rule, used when a URL is registered (an address written in it) and again at connect time,
// after DNS (http/outbound-addresses.ts). Text in, a word out: no I/O, no node:net.
//
// Refused: every special-purpose block of IANA's IPv4 and IPv6 registries that is not globally
// reachable (private, shared, link-local, documentation, benchmarking, multicast, reserved),
// the cloud metadata addresses among them (169.254.169.254, fd00:ec2::254), and the IPv6 forms
// that carry an IPv4 address a node may route to (IPv4-mapped and -compatible, NAT64, 6to4,
// Teredo). Loopback is its own answer: a developer's instance may send test events to itself.

/** An address as a number, with its family. */
interface Ip {
  v: 4 | 6;
  n: bigint;
}

const V4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function v4(text: string): bigint | undefined {
  if (!V4.test(text)) return undefined;
  return text.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function v6(text: string): bigint | undefined {
  if (!/^[0-9a-f:.]+$/i.test(text) || text.split('::').length > 2) return undefined;
  let tail: bigint[] = [];
  let body = text;
  // A dotted IPv4 address as its last 32 bits: ::ffff:10.0.0.1, 64:ff9b::192.0.2.1.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const four = v4(dotted[2]);
    if (four === undefined) return undefined;
    tail = [four >> 16n, four & 0xffffn];
    body = dotted[1].endsWith('::') ? dotted[1] : dotted[1].slice(0, -1);
  }
  const groups = (side: string) => (side === '' ? [] : side.split(':'));
  const [left, right] = body.includes('::') ? body.split('::').map(groups) : [groups(body), undefined];
  const written = [...left, ...(right ?? [])];
  if (written.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  const missing = 8 - tail.length - written.length;
  if (right === undefined ? missing !== 0 : missing < 1) return undefined;
  const all = [
    ...left.map((g) => BigInt(parseInt(g, 16))),
    ...Array<bigint>(right === undefined ? 0 : missing).fill(0n),
    ...(right ?? []).map((g) => BigInt(parseInt(g, 16))),
    ...tail,
  ];
  return all.reduce((n, g) => (n << 16n) | g, 0n);
}

/** The address in `text` (IPv4 dotted, IPv6 as written or in brackets, a zone dropped), or undefined when it is not one. */
function parse(text: string): Ip | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%[^%]*$/, '');
  const four = v4(bare);
  if (four !== undefined) return { v: 4, n: four };
  const six = bare.includes(':') ? v6(bare) : undefined;
  return six === undefined ? undefined : { v: 6, n: six };
}

/** A block as [first address, prefix length]. */
type Block = readonly [string, number];

const within = (ip: Ip, [net, prefix]: Block): boolean => {
  const base = parse(net)!;
  const bits = BigInt((ip.v === 4 ? 32 : 128) - prefix);
  return base.v === ip.v && ip.n >> bits === base.n >> bits;
};

const LOOPBACK: Block[] = [
  ['127.0.0.0', 8],
  ['::1', 128],
];

/** IANA's IPv4 special-purpose registry, the blocks not globally reachable (and the limited broadcast within 240/4). */
export const SPECIAL_V4: Block[] = [
  ['0.0.0.0', 8], // "this network" (0.0.0.0 reaches this machine)
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['169.254.0.0', 16], // link-local, the cloud metadata service
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255
];

const GLOBAL_UNICAST: Block = ['2000::', 3];

/**
 * IANA's IPv6 special-purpose registry, the blocks not globally reachable, and the forms that
 * carry an IPv4 address. (Those outside 2000::/3 are refused as outside global unicast too:
 * they are named here so that each has its reason.)
 */
export const SPECIAL_V6: Block[] = [
  ['::', 96], // unspecified, and IPv4-compatible (deprecated: ::7f00:1 is 127.0.0.1)
  ['::ffff:0:0:0', 96], // IPv4-translated
  ['64:ff9b::', 96], // NAT64: its last 32 bits are an IPv4 address the translator routes to
  ['64:ff9b:1::', 48], // NAT64, local use
  ['100::', 64], // discard-only
  ['2001::', 23], // IETF protocol assignments, Teredo (2001::/32) among them
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: its next 32 bits are an IPv4 address
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing (SRv6) SIDs
  ['fc00::', 7], // unique local (fd00:ec2::254: a cloud's metadata service)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed on some networks)
  ['ff00::', 8], // multicast
];

/**
 * What kind of address `text` is: `loopback` (this machine), `special` (private, link-local,
 * reserved and the like: never sent to), `public`, or undefined when it is no IP address. An
 * IPv4-mapped IPv6 address (::ffff:10.0.0.1, ::ffff:a00:1) is its IPv4 address.
 */
export function addressKind(text: string): 'loopback' | 'special' | 'public' | undefined {
  let ip = parse(text);
  if (!ip) return undefined;
  if (ip.v === 6 && ip.n >> 32n === 0xffffn) ip = { v: 4, n: ip.n & 0xffffffffn };
  if (LOOPBACK.some((block) => within(ip, block))) return 'loopback';
  // IPv6 is public only within global unicast (2000::/3): the rest is reserved or special.
  if (ip.v === 6 && !within(ip, GLOBAL_UNICAST)) return 'special';
  return (ip.v === 4 ? SPECIAL_V4 : SPECIAL_V6).some((block) => within(ip, block)) ? 'special' : 'public';
}
