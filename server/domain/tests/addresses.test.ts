// The one rule of where the service may send a request of its own (domain/addresses.ts), range
// by range: each special-purpose block's first and last address refused, its neighbours
// outside it not; and both places that used to hold their own copy (the URL a merchant
// registers, the address a delivery connects to) answering by it.
import { describe, expect, it } from 'vitest';
import { addressKind } from '../addresses.ts';
import { webhookUrlProblem } from '../../webhooks/rules.ts';
import { addressProblem } from '../../http/outbound-addresses.ts';

/** Each block: addresses in it (its edges), then addresses just outside it. */
const V4: Array<[string, string[], string[]]> = [
  ['0.0.0.0/8 this network', ['0.0.0.0', '0.255.255.255'], ['1.0.0.0']],
  ['10.0.0.0/8 private', ['10.0.0.0', '10.255.255.255'], ['9.255.255.255', '11.0.0.0']],
  ['100.64.0.0/10 shared (carrier-grade NAT)', ['100.64.0.0', '100.64.0.1', '100.127.255.255'], ['100.63.255.255', '100.128.0.0']],
  ['169.254.0.0/16 link-local, metadata', ['169.254.0.0', '169.254.169.254', '169.254.255.255'], ['169.253.255.255', '169.255.0.0']],
  ['172.16.0.0/12 private', ['172.16.0.0', '172.20.1.1', '172.31.255.255'], ['172.15.255.255', '172.32.0.0']],
  ['192.0.0.0/24 IETF protocol assignments', ['192.0.0.0', '192.0.0.255'], ['191.255.255.255', '192.0.1.0']],
  ['192.0.2.0/24 TEST-NET-1', ['192.0.2.0', '192.0.2.255'], ['192.0.1.255', '192.0.3.0']],
  ['192.88.99.0/24 6to4 relay anycast', ['192.88.99.0', '192.88.99.255'], ['192.88.98.255', '192.88.100.0']],
  ['192.168.0.0/16 private', ['192.168.0.0', '192.168.255.255'], ['192.167.255.255', '192.169.0.0']],
  ['198.18.0.0/15 benchmarking', ['198.18.0.0', '198.18.0.1', '198.19.255.255'], ['198.17.255.255', '198.20.0.0']],
  ['198.51.100.0/24 TEST-NET-2', ['198.51.100.0', '198.51.100.255'], ['198.51.99.255', '198.51.101.0']],
  ['203.0.113.0/24 TEST-NET-3', ['203.0.113.0', '203.0.113.255'], ['203.0.112.255', '203.0.114.0']],
  ['224.0.0.0/4 multicast', ['224.0.0.0', '239.255.255.255'], ['223.255.255.255']],
  ['240.0.0.0/4 reserved, broadcast', ['240.0.0.0', '255.255.255.255'], []],
];
const V6: Array<[string, string[], string[]]> = [
  ['::/128 unspecified, ::/96 IPv4-compatible', ['::', '::7f00:1', '::a00:1', '::8.8.8.8', '::ffff:ffff'], []],
  ['::ffff:0:0:0/96 IPv4-translated', ['::ffff:0:0:0', '::ffff:0:a00:1', '::ffff:0:ffff:ffff'], []],
  ['64:ff9b::/96 NAT64', ['64:ff9b::', '64:ff9b::a00:1', '64:ff9b::8.8.8.8', '64:ff9b::ffff:ffff'], []],
  ['64:ff9b:1::/48 NAT64 local use', ['64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'], []],
  ['100::/64 discard-only', ['100::', '100::ffff:ffff:ffff:ffff'], []],
  [
    '2001::/23 IETF protocol assignments, Teredo',
    ['2001::', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['2001:200::1', '2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
  ],
  ['2001:db8::/32 documentation', ['2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'], ['2001:db7:ffff::1', '2001:db9::']],
  ['2002::/16 6to4', ['2002::', '2002:7f00:1::1', '2002:a00:1::', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], ['2003::']],
  ['3fff::/20 documentation', ['3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'], ['3ffe:ffff::1', '3fff:1000::']],
  ['5f00::/16 SRv6 SIDs', ['5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], []],
  ['fc00::/7 unique local, metadata', ['fc00::', 'fd00:ec2::254', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], []],
  ['fe80::/10 link-local', ['fe80::', 'fe80::1', 'fe80::1%eth0', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], []],
  ['fec0::/10 site-local', ['fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], []],
  ['ff00::/8 multicast', ['ff00::', 'ff02::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], []],
];

describe('the special-purpose address rule', () => {
  describe.each([...V4, ...V6])('%s', (_, inside, outside) => {
    it.each(inside)('refuses %s', (address) => expect(addressKind(address)).toBe('special'));
    it.each(outside)('lets %s through, just outside it', (address) => expect(addressKind(address)).toBe('public'));
  });

  it('lets through public addresses', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001::1', '::ffff:8.8.8.8', '::ffff:808:808']) {
      expect(addressKind(address), address).toBe('public');
    }
  });

  it('refuses IPv6 outside global unicast (2000::/3), the neighbours of the blocks there among it', () => {
    for (const address of [
      '0:0:0:0:0:1::',
      '::1:0:0:0',
      '64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff',
      '64:ff9b::1:0:0',
      '64:ff9b:2::',
      '100:0:0:1::',
      'ff::1',
      '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
      '4000::',
      '5eff:ffff::1',
      '5f01::',
      'fbff:ffff::1',
      'fe7f:ffff::1',
    ]) {
      expect(addressKind(address), address).toBe('special');
    }
    expect(addressKind('2000::')).toBe('public');
    expect(addressKind('3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toBe('public');
  });

  it('sees this machine in every form: 127/8, ::1, and 127/8 mapped into IPv6', () => {
    for (const address of [
      '127.0.0.1',
      '127.0.0.0',
      '127.255.255.255',
      '::1',
      '[::1]',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::FFFF:7F00:1',
    ]) {
      expect(addressKind(address), address).toBe('loopback');
    }
  });

  it('reads an IPv4-mapped IPv6 address as its IPv4 address, dotted or in hex', () => {
    for (const address of [
      '::ffff:10.0.0.1',
      '::ffff:a00:1',
      '::ffff:a9fe:a9fe',
      '::ffff:100.64.0.1',
      '::ffff:6440:1',
      '::ffff:198.18.0.1',
      '::ffff:192.168.1.1',
      '0:0:0:0:0:ffff:c0a8:101',
    ]) {
      expect(addressKind(address), address).toBe('special');
    }
  });

  it('answers nothing for text that is no address', () => {
    for (const text of [
      'example.com',
      '',
      '1.2.3',
      '1.2.3.4.5',
      '256.1.1.1',
      '01.2.3.4',
      '1:2:3',
      '1::2::3',
      '::g',
      '1:2:3:4:5:6:7:8:9',
      ':1::',
      '1::2:',
      '::ffff:300.1.1.1',
      '1.2.3.4::',
    ]) {
      expect(addressKind(text), text).toBeUndefined();
    }
  });
});

describe('both places that check an address answer by the one rule', () => {
  it('a webhook URL naming such an address is refused when registered, whichever way it is written', () => {
    for (const host of [
      '100.64.0.1',
      '198.18.0.1',
      '192.0.2.1',
      '169.254.169.254',
      '[::ffff:a9fe:a9fe]',
      '[::ffff:100.64.0.1]',
      '[fd00:ec2::254]',
      '[2001:db8::1]',
      '[64:ff9b::a00:1]',
      '0x0a.1',
      '0.0.0.0',
      'metadata.google.internal',
    ]) {
      expect(webhookUrlProblem(`https://${host}/hook`, 'live'), host).toBe('expected a public host, not a private, link-local or metadata address');
    }
    for (const host of ['127.0.0.1', '0x7f.1', '[::1]', '[::ffff:127.0.0.1]', 'localhost']) {
      expect(webhookUrlProblem(`http://${host}/hook`, 'live'), host).toBe('expected a public https URL: loopback addresses are for test keys only');
      expect(webhookUrlProblem(`http://${host}/hook`, 'test', true), host).toBeUndefined();
    }
    expect(webhookUrlProblem('https://8.8.8.8/hook', 'live')).toBeUndefined();
    expect(webhookUrlProblem('https://hooks.example.com/hook', 'live')).toBeUndefined();
  });

  it('an address a delivery would connect to is refused the same way', () => {
    for (const address of [
      '100.64.0.1',
      '198.18.0.1',
      '192.0.2.1',
      '198.51.100.1',
      '203.0.113.1',
      '192.88.99.1',
      '2001:db8::1',
      '100::1',
      '64:ff9b:1::1',
      '2001::1',
      '3fff::1',
      '5f00::1',
      '::ffff:0:a00:1',
    ]) {
      expect(addressProblem(address, true), address).toBe(`${address} is a private, link-local or reserved address`);
    }
    expect(addressProblem('127.0.0.1', 'live')).toBe('127.0.0.1 is this machine: loopback is for test keys only');
    expect(addressProblem('::ffff:7f00:1', true)).toBeUndefined();
    expect(addressProblem('8.8.8.8', 'live')).toBeUndefined();
  });
});
