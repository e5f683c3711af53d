// The treasury against the journal, in production. Per chain: first, every counted
// transfer not yet below the chain's finalized block is looked at again (its stored block hash
// against the chain's, however deep: beyond the watcher's `reorgDepth` too); one a
// reorganisation took away for good is reversed in the journal, the merchant told, the chain's
// money movements held. Then each coin the treasury keeps (every token, and the native coin):
// what it holds on chain against what the journal says it owes (merchants' available and
// reserved, the operator's fees, what is owed to the payout partner; of the native coin, the
// operator's gas), counting what is on its way either way. A shortfall is logged, kept for
// /readyz and /metrics, an operator's event, and above the operator's threshold a hold.
import {
  createPublicClient,
  decodeEventLog,
  encodeEventTopics,
  erc20Abi,
  formatUnits,
  TransactionReceiptNotFoundError,
  type Address,
  type PublicClient,
} from 'viem';
import { configuredUnits, NATIVE } from '../balances/ledger-rules.ts';
import type { JournalStore } from '../balances/journal-store.ts';
import type { TreasuryFinding, TreasuryHoldStore } from '../balances/treasury-hold-store.ts';
import type { TreasuryTxStore } from '../balances/treasury-store.ts';
import type { Logger } from '../service/log.ts';
import type { Check } from './readiness.ts';
import { rpcTransport, type Network } from './networks.ts';
import { TRANSFER } from './watcher.ts';

/**
 * How far back counted transfers are looked at again on a chain that answers no `finalized`
 * block: 10,000 blocks (a day and more on most chains).
 */
export const UNFINALIZED_WINDOW = 10_000n;

export interface TreasuryCheckDeps {
  holds: Pick<TreasuryHoldStore, 'inFlight' | 'saveFinding' | 'findings' | 'hold' | 'clear' | 'event' | 'counted' | 'moved' | 'reverse'>;
  journal: Pick<JournalStore, 'held'>;
  treasuryTxs: Pick<TreasuryTxStore, 'inFlight'>;
  log: Logger;
  now: () => number;
  /** Whole coins (decimal text) a coin may be short before the chain's money movements are held. */
  holdThreshold: string;
}

/** What one look at a chain found. */
export interface TreasuryCheck {
  chainId: number;
  /** Counted transfers found gone for good, and reversed, this time. */
  reversed: number;
  findings: TreasuryFinding[];
}

const clients = new WeakMap<Network, PublicClient>();
const clientOf = (network: Network): PublicClient => {
  let rpc = clients.get(network);
  if (!rpc)
    clients.set(network, (rpc = createPublicClient({ cacheTime: 0, transport: rpcTransport(network.rpcUrls, undefined, network.rpcEvents) }) as PublicClient));
  return rpc;
};

/** One look at a chain: deep reorganisations first (a reversal changes what is owed), then the treasury's coins. */
export async function checkTreasury(network: Network, deps: TreasuryCheckDeps, rpc: PublicClient = clientOf(network)): Promise<TreasuryCheck> {
  const reversed = await reverseDeepReorganisations(network, deps, rpc);
  const findings = network.treasury ? await reconcileTreasury(network, network.treasury, deps, rpc) : [];
  return { chainId: network.chainId, reversed, findings };
}

const TRANSFER_TOPIC = encodeEventTopics({ abi: [TRANSFER], eventName: 'Transfer' })[0];

/**
 * Counted transfers a look found gone, with the chain's head then: one is reversed only when a
 * later look, the chain grown past that head, finds it gone again (a node that answered once
 * from a branch of its own, or without the receipt, moves no money). Kept per network, in memory:
 * a restart only looks twice again.
 */
const suspects = new WeakMap<Network, Map<string, bigint>>();

/**
 * Counted transfers above the chain's finalized block (or the last UNFINALIZED_WINDOW blocks)
 * whose block hash changed: the same transaction re-mined elsewhere is followed; one that is on
 * the chain no more, once the chain has grown past its old block by the confirmations, and still
 * not at a second look after the chain grew again, is gone for good and reversed. A node behind
 * the others (its head below the block) decides nothing.
 */
export async function reverseDeepReorganisations(network: Network, deps: TreasuryCheckDeps, rpc: PublicClient): Promise<number> {
  const head = await rpc.getBlockNumber();
  let floor: bigint;
  try {
    floor = (await rpc.getBlock({ blockTag: 'finalized' })).number ?? 0n;
  } catch {
    floor = head > UNFINALIZED_WINDOW ? head - UNFINALIZED_WINDOW : 0n;
  }
  const hashes = new Map<bigint, string | undefined>();
  let reversed = 0;
  let gone = suspects.get(network);
  if (!gone) suspects.set(network, (gone = new Map()));
  for (const t of await deps.holds.counted(network.chainId, floor)) {
    const key = `${t.txHash}/${t.logIndex}`;
    if (head < t.blockNumber + BigInt(network.confirmations) - 1n) continue;
    if (!hashes.has(t.blockNumber)) hashes.set(t.blockNumber, (await rpc.getBlock({ blockNumber: t.blockNumber })).hash ?? undefined);
    if (hashes.get(t.blockNumber) === t.blockHash) {
      gone.delete(key);
      continue;
    }
    const receipt = await rpc.getTransactionReceipt({ hash: t.txHash as `0x${string}` }).catch((error: unknown) => {
      if (error instanceof TransactionReceiptNotFoundError) return undefined;
      throw error;
    });
    const still =
      receipt?.status === 'success' &&
      receipt.logs.some((l) => {
        if (l.address.toLowerCase() !== t.token || l.topics[0] !== TRANSFER_TOPIC) return false;
        const { args } = decodeEventLog({ abi: [TRANSFER], data: l.data, topics: l.topics });
        return args.to.toLowerCase() === t.recipient && args.value === t.amount;
      });
    if (still && receipt) {
      gone.delete(key);
      await deps.holds.moved(t, { number: receipt.blockNumber, hash: receipt.blockHash });
      deps.log.warn(
        { chainId: t.chainId, tx: t.txHash, from: String(t.blockNumber), to: String(receipt.blockNumber) },
        'a counted transfer was re-mined in another block after a reorganisation: still counted',
      );
      continue;
    }
    const since = gone.get(key);
    if (since === undefined || head <= since) {
      if (since === undefined) {
        gone.set(key, head);
        deps.log.warn(
          { chainId: t.chainId, tx: t.txHash, logIndex: t.logIndex, block: String(t.blockNumber), head: String(head) },
          'a counted transfer is not on the chain: looked at again once the chain has grown before it is reversed',
        );
      }
      continue;
    }
    gone.delete(key);
    if (await deps.holds.reverse(t, deps.now())) {
      reversed++;
      deps.log.error(
        {
          chainId: t.chainId,
          tx: t.txHash,
          logIndex: t.logIndex,
          block: String(t.blockNumber),
          token: t.token,
          amount: String(t.amount),
          reference: t.reference,
          merchant: t.merchantId,
          journaled: t.journaled,
        },
        'deep reorganisation: a counted transfer left the chain for good; reversed in the journal, the merchant told, money movements on the chain held until the operator resolves it',
      );
    }
  }
  return reversed;
}

/**
 * What a token's treasury holds past everything the journal explains: more than it
 * owes with every sweep on its way in counted (a recorded transaction on its way out only lowers
 * what it holds). The native coin's surplus is the operator's gas funding, booked by the treasury
 * job: never a surplus here. A surplus holds nothing: it is reported (readiness warns, metric,
 * log, the operator's event) because it means the books missed something (docs/operating.md).
 */
export const surplusOf = (f: Pick<TreasuryFinding, 'token' | 'held' | 'owed' | 'incoming'>): bigint => {
  if (f.token === NATIVE) return 0n;
  const extra = f.held - f.owed - f.incoming;
  return extra > 0n ? extra : 0n;
};

/** The coins a treasury keeps: every token of the network, and its native coin. */
const coinsOf = (network: Network) => [
  ...network.tokens.map((t) => ({ symbol: t.symbol as string, token: t.address.toLowerCase(), decimals: t.decimals })),
  { symbol: 'native', token: NATIVE, decimals: 18 },
];

/**
 * Each coin: on chain (read first, at the head) against the journal (read after): a transaction
 * that lands in between shows as a surplus, never as a shortfall. Short is what the treasury
 * lacks even counting every recorded outgoing transaction as gone already. The native coin's
 * gas under way is not known before its receipt: while a treasury transaction is in flight its
 * shortfall is not judged, and it never holds (its surplus is the operator's funding, booked by
 * the treasury job).
 */
export async function reconcileTreasury(network: Network, treasury: Address, deps: TreasuryCheckDeps, rpc: PublicClient): Promise<TreasuryFinding[]> {
  const coins = coinsOf(network);
  const before = new Map((await deps.holds.findings()).filter((f) => f.chainId === network.chainId).map((f) => [f.token, f]));
  let measured = await measure(network, treasury, coins, deps, rpc);
  // A shortfall is looked at once more, all of it read again, before anything is said or held:
  // money that moved on chain and in the journal while the first look read them one after the
  // other (the chain early, the journal late) is gone from the second look; a real shortfall stays.
  // A surplus too: a withdrawal counted between the two reads shows as one.
  const again = coins.filter((_, i) => measured[i]!.short > 0n || surplusOf(measured[i]!) > 0n);
  if (again.length > 0) {
    const second = await measure(network, treasury, again, deps, rpc);
    measured = measured.map((m) => second.find((s) => s.token === m.token) ?? m);
  }
  for (const [i, coin] of coins.entries()) {
    const finding = measured[i]!;
    await deps.holds.saveFinding(finding);
    const { short, held, owed, atBlock } = finding;
    const text = (u: bigint) => formatUnits(u, coin.decimals);
    const surplus = surplusOf(finding);
    if (surplus > 0n) {
      const detail = `the treasury on chain ${network.chainId} holds ${text(held)} ${coin.symbol} at block ${atBlock}, the journal owes ${text(owed)} (${text(finding.incoming)} on its way in): ${text(surplus)} more than the books explain`;
      deps.log.warn(
        {
          chainId: network.chainId,
          coin: coin.symbol,
          token: coin.token,
          held: String(held),
          owed: String(owed),
          incoming: String(finding.incoming),
          outgoing: String(finding.outgoing),
          surplus: String(surplus),
          atBlock: String(atBlock),
        },
        'treasury reconciliation: the treasury holds more than the journal owes (a surplus: nothing is held; look for its cause)',
      );
      const was = before.get(coin.token);
      if (!was || surplusOf(was) === 0n) await deps.holds.event('treasury_surplus', network.chainId, detail, deps.now());
    }
    if (short === 0n) continue;
    const native = coin.token === NATIVE;
    const detail = `the treasury on chain ${network.chainId} holds ${text(held)} ${coin.symbol} at block ${atBlock}, the journal owes ${text(owed)} (${text(finding.outgoing)} on its way out): ${text(short)} short`;
    deps.log.error(
      {
        chainId: network.chainId,
        coin: coin.symbol,
        token: coin.token,
        held: String(held),
        owed: String(owed),
        incoming: String(finding.incoming),
        outgoing: String(finding.outgoing),
        short: String(short),
        atBlock: String(atBlock),
      },
      'treasury reconciliation: the treasury holds less than the journal owes',
    );
    if (!before.get(coin.token)?.short) await deps.holds.event('treasury_short', network.chainId, detail, deps.now());
    if (!native && short > configuredUnits(deps.holdThreshold, coin.decimals)) await deps.holds.hold(network.chainId, 'treasury_short', detail, deps.now());
  }
  // No token short: a `treasury_short` hold lifts itself (once no deposit waits to be swept again: treasury-hold-store.ts's clear).
  if (measured.every((f) => f.token === NATIVE || f.short === 0n)) {
    const why = `the treasury on chain ${network.chainId} holds what the journal owes of every token again, at block ${measured[0]?.atBlock ?? 0n}`;
    const lifted = await deps.holds.clear(network.chainId, why, deps.now());
    if (lifted)
      deps.log.warn(
        { chainId: network.chainId, since: new Date(lifted.sinceMs).toISOString(), detail: lifted.detail },
        'treasury reconciliation: the treasury holds what the journal owes again; the treasury_short hold on the chain is lifted by itself, money movements resume',
      );
  }
  return measured;
}

type Coin = ReturnType<typeof coinsOf>[number];

/** One reading of the coins: the chain at its head first, then the journal and what is in flight. */
async function measure(network: Network, treasury: Address, coins: Coin[], deps: TreasuryCheckDeps, rpc: PublicClient): Promise<TreasuryFinding[]> {
  const atBlock = await rpc.getBlockNumber();
  const onChain = await Promise.all(
    coins.map((c) =>
      c.token === NATIVE
        ? rpc.getBalance({ address: treasury, blockNumber: atBlock })
        : rpc.readContract({ address: c.token as Address, abi: erc20Abi, functionName: 'balanceOf', args: [treasury], blockNumber: atBlock }),
    ),
  );
  const busy = await deps.treasuryTxs.inFlight(network.chainId);
  const findings: TreasuryFinding[] = [];
  for (const [i, coin] of coins.entries()) {
    const held = onChain[i]!;
    const j = await deps.journal.held(network.chainId, coin.token);
    const native = coin.token === NATIVE;
    const owed = j.merchants + j.fees + j.payable + (native ? j.gas : 0n);
    const flight = await deps.holds.inFlight(network.chainId, coin.token);
    const gap = owed - flight.outgoing - held;
    const short = gap > 0n && !(native && busy) ? gap : 0n;
    findings.push({ chainId: network.chainId, token: coin.token, symbol: coin.symbol, held, owed, ...flight, short, atBlock, checkedMs: deps.now() });
  }
  return findings;
}

/**
 * /readyz's treasury checks, from the last findings of any instance: each coin held against
 * owed (not ready while short), and each chain whose money movements are held. Each carries
 * its figures in whole coins for /metrics.
 */
export async function treasuryReadiness(networks: Network[], holds: Pick<TreasuryHoldStore, 'findings' | 'holds'>): Promise<Check[]> {
  const decimals = new Map(networks.flatMap((n) => coinsOf(n).map((c) => [`${n.chainId}/${c.token}`, c.decimals] as const)));
  const checks: Check[] = [];
  for (const f of await holds.findings()) {
    const d = decimals.get(`${f.chainId}/${f.token}`);
    if (d === undefined) continue;
    const text = (u: bigint) => formatUnits(u, d);
    const surplus = surplusOf(f);
    checks.push({
      name: `treasury on chain ${f.chainId} (${f.symbol})`,
      ok: f.short === 0n,
      // A surplus is a warning: ready still, nothing held, the operator told.
      ...(surplus > 0n ? { warning: true } : {}),
      detail: `holds ${text(f.held)}, owes ${text(f.owed)} (in flight: ${text(f.incoming)} in, ${text(f.outgoing)} out) at block ${f.atBlock}${f.short > 0n ? `: ${text(f.short)} SHORT` : ''}${surplus > 0n ? `: ${text(surplus)} SURPLUS (more than the books explain: see docs/operating.md)` : ''}`,
      treasury: { chainId: f.chainId, coin: f.symbol, held: Number(text(f.held)), owed: Number(text(f.owed)), surplus: Number(text(surplus)) },
    });
  }
  for (const h of (await holds.holds()).active) {
    checks.push({
      name: `money movements on chain ${h.chainId}`,
      ok: false,
      // A shortfall's hold lifts itself once the treasury agrees again; any other waits for the operator.
      detail: `held since ${new Date(h.sinceMs).toISOString()} (${h.reason}): ${h.detail}; ${h.reason === 'treasury_short' ? 'lifts itself once the treasury holds what the journal owes (a sweep a reorganisation took away is swept again by itself); else find the cause (docs/operating.md) and ' : ''}resolve with npm run service -- treasury resolve --chain ${h.chainId} --by <name> --why "<reason>"`,
    });
  }
  return checks;
}
