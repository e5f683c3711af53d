// Networks from the operator's file (NETWORKS_FILE): checked once at start, every wrong field
// named. { "test": [Network, …], "live": [Network, …] }, either optional; a mode with one chain
// may also be written as that one object (the first form this file had). See the README.
import { readFileSync } from 'node:fs';
import { parseGwei } from 'viem';
import * as z from 'zod/mini';
import { COINS } from '../../contract/fields.ts';
import { fieldErrors } from '../../contract/field-errors.ts';
import type { KeyMode } from '../../contract/keys.ts';
import type { Network } from './networks.ts';

const address = z.custom<`0x${string}`>((v) => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v), { error: 'a 0x address of 40 hex digits' });
const url = z.custom<string>(
  (v) => {
    try {
      return typeof v === 'string' && /^https?:$/.test(new URL(v).protocol);
    } catch {
      return false;
    }
  },
  { error: 'an http(s) URL' },
);
const whole = (min: number, max: number) =>
  z.custom<number>((v) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max, { error: `a whole number from ${min} to ${max}` });

/** An amount of the native coin in wei, as decimal text (a JSON number cannot hold every such amount). */
const wei = z.custom<string>((v) => typeof v === 'string' && /^[1-9]\d{0,29}$/.test(v), {
  error: 'wei of the native coin as decimal text, such as "10000000000000" (more than 0)',
});

const NetworkSchema = z.object({
  chainId: whole(1, 2 ** 31 - 1),
  name: z.custom<string>((v) => typeof v === 'string' && v.length > 0 && v.length <= 60, { error: 'a name of 1 to 60 characters' }),
  rpcUrls: z.array(url).check(z.minLength(1, 'at least one RPC URL')),
  confirmations: whole(1, 1000),
  factory: address,
  tokens: z.array(
    z.object({
      symbol: z.custom<(typeof COINS)[number]>((v) => (COINS as readonly unknown[]).includes(v), { error: `one of ${COINS.join(', ')}` }),
      name: z.custom<string>((v) => typeof v === 'string' && v.length > 0, { error: 'a name' }),
      address,
      decimals: whole(0, 36),
      minimum: z.optional(
        z.custom<string>((v) => typeof v === 'string' && /^\d{1,18}(\.\d{1,36})?$/.test(v), { error: 'a decimal amount of the token, such as "0.01"' }),
      ),
      withdrawalMinimum: z.optional(
        z.custom<string>((v) => typeof v === 'string' && /^\d{1,18}(\.\d{1,36})?$/.test(v), { error: 'a decimal amount of the token, such as "1"' }),
      ),
      feeOnTransfer: z.optional(z.custom<boolean>((v) => typeof v === 'boolean', { error: 'true or false' })),
      eip3009: z.optional(
        z.object({
          name: z.custom<string>((v) => typeof v === 'string' && v.length > 0 && v.length <= 100, {
            error: 'the token\'s EIP-712 domain name, such as "USD Coin"',
          }),
          version: z.custom<string>((v) => typeof v === 'string' && v.length > 0 && v.length <= 20, {
            error: 'the token\'s EIP-712 domain version, such as "2"',
          }),
        }),
      ),
      withdrawalFee: z.optional(
        z.custom<string>((v) => typeof v === 'string' && /^\d{1,18}(\.\d{1,36})?$/.test(v), {
          error: 'a decimal amount of the token, such as "0.5" (0: none)',
        }),
      ),
    }),
  ),
  explorer: z.optional(
    z.custom<string>((v) => typeof v === 'string' && /^https:\/\/\S+$/.test(v) && !v.endsWith('/'), { error: 'an https URL without a trailing /' }),
  ),
  dev: z.optional(z.custom<boolean>((v) => typeof v === 'boolean', { error: 'true or false' })),
  maxFeeGwei: z.optional(
    z.custom<number>((v) => typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= 1_000_000 && /^\d+(\.\d{1,9})?$/.test(String(v)), {
      error: 'gwei per gas, more than 0 and at most 1000000, to 9 decimals',
    }),
  ),
  relayMaxGasWei: z.optional(wei),
  relayDailyGasWei: z.optional(wei),
  relayInstanceDailyGasWei: z.optional(wei),
  relaysPerPayerPerDay: z.optional(whole(1, 1_000)),
  logRange: z.optional(whole(1, 100_000)),
  reorgDepth: z.optional(whole(1, 10_000)),
  finality: z.optional(z.custom<'safe' | 'finalized'>((v) => v === 'safe' || v === 'finalized', { error: '"safe" or "finalized"' })),
  treasury: z.optional(address),
  treasuryKeyFile: z.optional(
    z.custom<string>((v) => typeof v === 'string' && v.length > 0 && v.length <= 4096, { error: 'the path of a file holding the treasury key' }),
  ),
  feeAddress: z.optional(address),
  swapRouter: z.optional(address),
  swapRateLimitBps: z.optional(whole(1, 10_000)),
  payoutPartner: z.optional(address),
  partnerMinimum: z.optional(
    z.custom<string>((v) => typeof v === 'string' && /^\d{1,18}(\.\d{1,18})?$/.test(v), { error: 'whole USDT as decimal text, such as "1000"' }),
  ),
  partnerMaxWaitMinutes: z.optional(whole(1, 10_080)),
});
const NetworkList = z.array(NetworkSchema).check(z.minLength(1, 'at least one network'));
/** Each mode's list, or its one network: chosen by what is written, so an error names the field itself. */
const networksSchema = (raw: unknown) => {
  const form = (mode: KeyMode) => (Array.isArray((raw as Record<string, unknown> | null)?.[mode]) ? NetworkList : NetworkSchema);
  return z.object({ test: z.optional(form('test')), live: z.optional(form('live')) });
};

/** Where a network of a mode is in the file, as an error names it: "live" (one object) or "live.1" (a list). */
export const fieldOf = (mode: KeyMode, index: number, listed: boolean): string => (listed ? `${mode}.${index}` : mode);

/**
 * Each mode's networks as the file writes them: a list, or the one object of the first form
 * (kept, so that start-up checks name a field as the file has it: "live.factory", "live.1.factory").
 */
export type NetworkFile = Partial<Record<KeyMode, Network | Network[]>>;

/** A mode's networks as a list, in the file's order, whichever form they were written in. */
export const networkList = (given: Network | Network[] | undefined): Network[] => (given === undefined ? [] : [given].flat());

/** Reads and checks the networks file; throws naming the file and each wrong field. */
export function networksFromFile(path: string): NetworkFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`NETWORKS_FILE: cannot read ${path} as JSON (${(error as Error).message})`);
  }
  const parsed = networksSchema(raw).safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `NETWORKS_FILE ${path}: ` +
        fieldErrors(parsed.error)
          .map((e) => `${e.field}: ${e.message}`)
          .join('; '),
    );
  }
  const networks: NetworkFile = {};
  // Each chain is watched once, with one cursor: a chain in both modes would let test money look
  // live, and one twice in a mode would be watched twice.
  const seen = new Map<number, string>();
  for (const mode of ['live', 'test'] as const) {
    const given = parsed.data[mode];
    if (!given) continue;
    const listed = Array.isArray(given);
    const list = (listed ? given : [given]).map((n, i) => {
      const at = fieldOf(mode, i, listed);
      if (mode === 'live' && n.dev) throw new Error(`NETWORKS_FILE ${path}: ${at}.dev: a live network is never a dev chain`);
      const before = seen.get(n.chainId);
      if (before) {
        throw new Error(
          before.startsWith(mode)
            ? `NETWORKS_FILE ${path}: ${at}.chainId: chain ${n.chainId} is already ${before}; list each chain once, with all its tokens`
            : `NETWORKS_FILE ${path}: ${at}.chainId: test keys need a chain of their own (a testnet), not the live chain ${n.chainId} (${before})`,
        );
      }
      seen.set(n.chainId, at);
      // What is owed to the partner would be "sent" to the treasury itself: owed for ever, and counted as sent.
      if (n.payoutPartner && n.treasury && n.payoutPartner.toLowerCase() === n.treasury.toLowerCase()) {
        throw new Error(`NETWORKS_FILE ${path}: ${at}.payoutPartner: expected the payout partner's own deposit address, not the treasury`);
      }
      const { maxFeeGwei, relayMaxGasWei, relayDailyGasWei, relayInstanceDailyGasWei, ...rest } = n;
      return {
        ...(rest as Omit<Network, 'maxFeePerGas' | 'relayMaxGasWei' | 'relayDailyGasWei' | 'relayInstanceDailyGasWei'>),
        ...(maxFeeGwei !== undefined ? { maxFeePerGas: parseGwei(String(maxFeeGwei)) } : {}),
        ...(relayMaxGasWei !== undefined ? { relayMaxGasWei: BigInt(relayMaxGasWei) } : {}),
        ...(relayDailyGasWei !== undefined ? { relayDailyGasWei: BigInt(relayDailyGasWei) } : {}),
        ...(relayInstanceDailyGasWei !== undefined ? { relayInstanceDailyGasWei: BigInt(relayInstanceDailyGasWei) } : {}),
      } as Network;
    });
    networks[mode] = listed ? list : list[0];
  }
  return networks;
}
