// The treasury's work (merchants on `balance` settlement): deposits swept into the treasury
// journaled into merchants' balances, and, one instance per chain at a time (a lease), pending
// swaps and withdrawals and what is owed to the payout partner sent from the treasury, each
// transaction recorded before it is sent (the first recorded is the only one ever sent) and
// counted only once its block has the network's confirmations: a reverted one, or one proven
// never to be mined, returns the reserved money (or leaves the partner owed); a missing receipt
// proves nothing, and the transaction waits. Each counted transaction's gas is a journal entry
// in the native coin, so the treasury's native balance reconciles too.
import type { Address, Hex, TransactionReceipt } from 'viem';
import { configuredUnits, partnerDue } from './ledger-rules.ts';
import { finishSwap, finishWithdrawal } from './use-cases.ts';
import { blockOf, counted, lookAgain, lookDue, nonceTakenBy, type LookState } from './sends-final.ts';
import { approved, approvedAgain } from './swap-approval.ts';
import type { RecordedTx, SignedTx, TreasuryTable } from './treasury-store.ts';
import { swapView, withdrawalView } from './views.ts';
import { feeOf, SwapRefused, Treasury, type Signed, type SwapProvider } from '../chain/treasury.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';
import { withLease, type HeldLease } from '../storage/leases.ts';

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const treasuryUses = [
  'db',
  'log',
  'treasuries',
  'sweepIntervalMs',
  'journal',
  'now',
  'intervalMs',
  'withdrawals',
  'swaps',
  'treasuryLeaseMs',
  'treasuryTxs',
  'instance',
  'balanceTransactions',
  'partnerTransfers',
  'treasuryReplaceAfterMs',
  'treasuryHolds',
] as const;
type TreasuryDeps = Pick<JobDeps, (typeof treasuryUses)[number]>;

export function treasuryJobs(deps: TreasuryDeps): Job[] {
  const { db, log } = deps;
  // Only sweeps into a treasury need journaling in the background (every read of a balance
  // catches up first): no treasury, no job, and never more often than sweeps or once a second.
  const journal =
    deps.treasuries.length === 0 || deps.sweepIntervalMs <= 0
      ? []
      : [
          loopJob(
            'journal deposits into balances',
            async () => {
              const written = await db.transaction((tx) => deps.journal.catchUp(tx, deps.now()));
              if (written) log.info({ entries: written }, "deposits journaled into merchants' balances");
            },
            Math.max(deps.sweepIntervalMs, 1000),
            (error) => log.warn({ err: error }, 'journaling deposits failed; retrying'),
          ),
        ];
  const senders = deps.treasuries.map(({ treasury, swaps }) => {
    // The first tick looks at the treasury's native coin (its gas funding) even with nothing to send.
    const state: SenderState = { fundingSeen: false, told: new Set(), gone: new Map() };
    return loopJob(
      `treasury chain ${treasury.network.chainId}`,
      () => sendPending(deps, treasury, swaps, state),
      deps.intervalMs,
      (error) => log.warn({ err: error, chainId: treasury.network.chainId }, 'treasury work failed; retrying'),
      {
        wakeOn: 'treasury_due',
      },
    );
  });
  return [...journal, ...senders];
}

/** How long the treasury lease lasts unless renewed (JobDeps.treasuryLeaseMs); it is renewed every third of that while a tick runs. */
export const TREASURY_LEASE_MS = 120_000;

/** And what completed sends were looked at again until final (sends-final.ts). */
interface SenderState extends LookState {
  fundingSeen: boolean;
  /** What was logged already about transactions still waiting (a tick runs every second). */
  told: Set<string>;
}

/** What one tick works with. */
interface Tick {
  deps: TreasuryDeps;
  treasury: Treasury;
  state: SenderState;
  /** The lease on sending from this chain's treasury: renewed while the tick runs, and again before anything new is signed. */
  lease: HeldLease;
}

/**
 * One tick of a treasury's sender: pending withdrawals and swaps, then what is owed to the
 * payout partner once due, then (nothing of the treasury's in flight) its native coin against
 * the journal. Every mined transaction's gas is journaled before the work it did is counted.
 */
async function sendPending(deps: TreasuryDeps, treasury: Treasury, swaps: SwapProvider | undefined, state: SenderState): Promise<void> {
  const { log } = deps;
  const chainId = treasury.network.chainId;
  const partner = partnerWork(deps, treasury);
  // Nothing pending: no lease taken, nothing written (this runs every few hundred ms).
  if (
    state.fundingSeen &&
    (await deps.withdrawals.pendingWithdrawals(chainId)).length === 0 &&
    (await deps.swaps.pendingSwaps(chainId)).length === 0 &&
    !(await partner.due()) &&
    !(await lookDue(deps, chainId, state))
  )
    return;
  // A held chain sends nothing: what was reserved before the hold waits, unsigned or
  // not sent again, and goes once the operator resolves it. Its completed sends are still looked
  // at again (that moves nothing): a swap a reorganisation took away holds the chain, short of the
  // coin it was to receive, and only undoing it lets the hold lift itself.
  const held = await heldNow(deps, chainId, state);
  if (held && !(await lookDue(deps, chainId, state))) return;
  const leaseMs = deps.treasuryLeaseMs ?? TREASURY_LEASE_MS;
  // One sender per treasury: a tick that waits on a slow node must not outlive its lease, or a
  // second instance would send at once. Once another instance holds it, it is lost for good:
  // this tick signs nothing more.
  await withLease(
    {
      take: () => deps.treasuryTxs.leaseTreasury(chainId, deps.instance, deps.now(), leaseMs),
      release: () => deps.treasuryTxs.releaseTreasury(chainId, deps.instance),
      ms: leaseMs,
      onLost: () => log.warn({ chainId }, 'the treasury lease went to another instance while a tick ran: this tick signs nothing more'),
    },
    async (lease) => {
      const lost = () => lease.signal.aborted;
      if (held) return void (await lookAgain(deps, treasury, state, lost));
      const tick: Tick = { deps, treasury, state, lease };
      const gas = (receipt: TransactionReceipt, memo: string, round = 0) =>
        deps.journal.gasSpent(chainId, receipt.transactionHash, feeOf(receipt), memo, deps.now(), round);
      for (const w of await deps.withdrawals.pendingWithdrawals(chainId)) {
        if (lost()) return;
        const tx = await transactionFor(
          tick,
          'withdrawals',
          w.id,
          (floor) => treasury.transfer(w.token as Address, w.address as Address, w.amount, floor),
          (signed) => deps.withdrawals.withdrawalSigned(w.id, signed, deps.now()),
        );
        if (!tx) continue;
        const outcome = await settle(tick, { table: 'withdrawals', id: w.id }, tx.hash, tx.raw, {
          token: w.token as Address,
          to: w.address as Address,
          amount: w.amount,
        });
        if (outcome.state === 'pending') continue;
        const round = await deps.withdrawals.unsentTimes(deps.db, w.id); // sent again after a reorganisation: its gas paid again
        if (outcome.receipt) await gas(outcome.receipt, `withdrawal ${w.id}`, round);
        const done = await finishWithdrawal(
          deps.balanceTransactions,
          w.id,
          outcome.state === 'ok' ? { sent: true, block: blockOf(outcome.receipt) } : { failure: outcome.failure },
          deps.now(),
          withdrawalView,
        );
        log.info({ withdrawal: w.id, purpose: w.purpose, chainId, status: done.state, tx: tx.hash }, 'withdrawal from the treasury');
      }
      for (const s of await deps.swaps.pendingSwaps(chainId)) {
        if (lost()) return;
        if (!swaps) {
          await finishSwap(deps.balanceTransactions, s.id, { failure: 'this network has no swap router configured' }, deps.now(), swapView);
          continue;
        }
        const sign = async (floor: number): Promise<Signed | undefined> => {
          // The approval of exactly this swap's amount first: recorded before it is sent, sent
          // again each tick until mined (a time-out leaves it recorded), its gas journaled.
          if (!(await approved(tick, s.id, () => swaps.approval(s.fromToken as Address, s.amountIn, floor), gas))) return undefined;
          try {
            return await swaps.sign(s.fromToken as Address, s.toToken as Address, s.amountIn, s.minimumOut, await deps.treasuryTxs.nonceFloor(chainId));
          } catch (error) {
            if (!(error instanceof SwapRefused)) throw error;
            const done = await finishSwap(deps.balanceTransactions, s.id, { failure: error.message }, deps.now(), swapView);
            log.info({ swap: s.id, chainId, status: done.state }, 'swap refused by the pool (price past the slippage limit); the balance is returned');
            return undefined;
          }
        };
        const tx = await transactionFor(tick, 'swaps', s.id, sign, (signed) => deps.swaps.swapSigned(s.id, signed, deps.now()));
        if (!tx) continue;
        // Sent again after a reorganisation took it away with its approval: the approval first.
        const approveRound = await deps.swaps.approveRound(s.id);
        if (approveRound > 0) await approvedAgain(tick, s.id, approveRound, gas, true);
        const outcome = await settle(tick, { table: 'swaps', id: s.id }, tx.hash, tx.raw);
        if (outcome.state === 'pending') continue;
        // (Its approval mined in this tick too: its gas journaled before the swap is decided.)
        if (approveRound > 0) await approvedAgain(tick, s.id, approveRound, gas, false);
        // Sent again after a reorganisation took it away once counted: its gas paid again.
        if (outcome.receipt) await gas(outcome.receipt, `swap ${s.id}`, await deps.swaps.unsentTimes(deps.db, s.id));
        const result =
          outcome.state === 'ok'
            ? { out: swaps.received(outcome.receipt, s.toToken as Address), block: blockOf(outcome.receipt) }
            : { failure: outcome.failure };
        const done = await finishSwap(deps.balanceTransactions, s.id, result, deps.now(), swapView);
        log.info({ swap: s.id, chainId, status: done.state, tx: tx.hash }, 'swap through the pool');
      }
      if (lost()) return;
      await partner.send(tick, gas);
      if (!lost()) await lookAgain(deps, treasury, state, lost);
      // The native coin against the journal, once nothing of the treasury's is in flight.
      if (!lost() && !(await deps.treasuryTxs.inFlight(chainId))) {
        const block = await treasury.rpc.getBlockNumber();
        const { funded, short } = await deps.journal.gasFunding(chainId, block, await treasury.nativeBalance(block), deps.now());
        state.fundingSeen = true;
        if (funded > 0n)
          log.info({ chainId, wei: String(funded), block: String(block) }, "native coin sent to the treasury journaled as the operator's gas funding");
        if (short > 0n)
          log.warn(
            { chainId, wei: String(short), block: String(block) },
            'the treasury holds less native coin than the journal says: a transaction whose gas was not journaled',
          );
      }
    },
  );
}

/**
 * The transaction a treasury row (withdrawal, swap, partner transfer) is paid by. The row is
 * read again first: the list this tick started from may be stale, another instance having
 * signed or decided it since. Its recorded transaction, if any, is the one. Else one is signed
 * now, only while this instance still holds the lease, at a nonce past the treasury's recorded
 * transactions still under way, and recorded before anything is sent;
 * the record keeps the first transaction written, and what it holds afterwards is the answer:
 * when another instance recorded one in between, that one is sent and followed and ours, at
 * another nonce, is never sent. Undefined: the row is decided, the lease lost, or signing
 * decided the row itself (a swap the pool refuses).
 */
async function transactionFor(
  tick: Tick,
  table: TreasuryTable,
  id: string,
  sign: (nonceAtLeast: number) => Promise<Signed | undefined>,
  record: (signed: SignedTx) => Promise<RecordedTx>,
): Promise<{ hash: Hex; raw: Hex } | undefined> {
  const { deps } = tick;
  const { log } = deps;
  const now = await deps.treasuryTxs.recordedTx(table, id);
  if (now.state !== 'pending') return undefined;
  if (now.txHash && now.rawTx) return { hash: now.txHash as Hex, raw: now.rawTx as Hex };
  if (!(await tick.lease.renew())) return undefined;
  if (await heldNow(deps, tick.treasury.network.chainId, tick.state)) return undefined;
  const signed = await sign(await deps.treasuryTxs.nonceFloor(tick.treasury.network.chainId));
  if (!signed) return undefined;
  const recorded = await record(signed);
  if (recorded.state !== 'pending' || !recorded.txHash || !recorded.rawTx) return undefined;
  if (recorded.txHash !== signed.hash) {
    log.warn(
      { chainId: tick.treasury.network.chainId, [table]: id, recorded: recorded.txHash, unsent: signed.hash },
      'another instance recorded a transaction for this first: that one is sent and followed, the one signed here never',
    );
  }
  return { hash: recorded.txHash as Hex, raw: recorded.rawTx as Hex };
}

/**
 * What is owed to the payout partner for bank payouts paid, sent to its deposit address on this
 * network (`payoutPartner`): in one transfer once it reaches `partnerMinimum` (1,000 USDT by
 * default) or the oldest of it has waited `partnerMaxWaitMinutes` (60), since each transfer
 * costs gas and a partner settles in batches anyway; a dev chain's minimum is 0 (each payout).
 * Recorded before it is signed, its transaction before it is sent; journaled payable → partner
 * only once counted (see settle); a failure leaves it owed, tried again a minute later.
 */
function partnerWork(deps: TreasuryDeps, treasury: Treasury) {
  const { log } = deps;
  const network = treasury.network;
  const chainId = network.chainId;
  const minimumOf = (token: string) => {
    const decimals = network.tokens.find((t) => t.address.toLowerCase() === token)?.decimals ?? 18;
    return configuredUnits(network.partnerMinimum ?? '1000', decimals);
  };
  const maxWaitMs = (network.partnerMaxWaitMinutes ?? 60) * 60_000;
  const dueCoins = async () => {
    const now = deps.now();
    const out: Array<{ token: string; owed: bigint }> = [];
    for (const o of await deps.partnerTransfers.owedToPartner(chainId)) {
      if (!partnerDue(o.owed, minimumOf(o.token), o.sinceMs, maxWaitMs, now)) continue;
      const failed = await deps.partnerTransfers.lastPartnerFailureMs(chainId, o.token);
      if (failed !== null && now - failed < 60_000) continue;
      out.push(o);
    }
    return out;
  };
  return {
    async due(): Promise<boolean> {
      if (!network.payoutPartner) return false;
      return (await deps.partnerTransfers.pendingPartnerTransfers(chainId)).length > 0 || (await dueCoins()).length > 0;
    },
    async send(tick: Tick, gas: (receipt: TransactionReceipt, memo: string, round?: number) => Promise<unknown>): Promise<void> {
      const to = network.payoutPartner;
      if (!to) return;
      const pending = await deps.partnerTransfers.pendingPartnerTransfers(chainId);
      for (const o of await dueCoins()) {
        if (pending.some((p) => p.token === o.token)) continue;
        const started = await deps.partnerTransfers.startPartnerTransfer(chainId, o.token, to, o.owed, deps.now());
        if (started) pending.push(started);
      }
      for (const t of pending) {
        if (tick.lease.signal.aborted) return;
        const tx = await transactionFor(
          tick,
          'partner_transfers',
          t.id,
          (floor) => treasury.transfer(t.token as Address, t.address as Address, t.amount, floor),
          (signed) => deps.partnerTransfers.partnerSigned(t.id, signed, deps.now()),
        );
        if (!tx) continue;
        const outcome = await settle(tick, { table: 'partner_transfers', id: t.id }, tx.hash, tx.raw, {
          token: t.token as Address,
          to: t.address as Address,
          amount: t.amount,
        });
        if (outcome.state === 'pending') continue;
        // Sent again after a reorganisation took it away once counted: its gas paid again.
        if (outcome.receipt) await gas(outcome.receipt, `payout partner transfer ${t.id}`, await deps.partnerTransfers.unsentTimes(deps.db, t.id));
        const done = await deps.partnerTransfers.finishPartnerTransfer(
          t.id,
          outcome.state === 'ok' ? { sent: true, block: blockOf(outcome.receipt) } : { failure: outcome.failure },
          deps.now(),
        );
        log.info(
          { partnerTransfer: t.id, chainId, status: done.state, amount: String(t.amount), tx: tx.hash },
          'what was owed to the payout partner, sent from the treasury',
        );
      }
    },
  };
}

type Settled = { state: 'ok'; receipt: TransactionReceipt } | { state: 'failed'; failure: string; receipt?: TransactionReceipt } | { state: 'pending' };

/**
 * Sends a recorded transaction (again: one a reorganisation took off the chain, or a node
 * dropped, goes back to the pool) and looks at it once, without waiting (the next tick looks
 * again): mined with the network's confirmations, ok or reverted, with its receipt (a token
 * transfer, `transfer`, is ok only when its receipt logs the token moving the amount to its
 * destination; less, it failed); mined and
 * not yet deep enough, pending (a reorganisation could still take it away, or mine it again
 * with another outcome). Not mined, it is failed only on proof that it never will be: its nonce
 * was taken by another of the treasury's recorded transactions, whose receipt is in hand with
 * its confirmations. A missing receipt with its nonce used proves nothing (a node behind on its
 * index answers none for a transaction it mined), nor does a node that fails to answer: the
 * transaction waits, and this is logged once.
 */
async function settle(
  tick: Tick,
  row: { table: TreasuryTable; id: string },
  hash: Hex,
  raw: Hex,
  transfer?: { token: Address; to: Address; amount: bigint },
): Promise<Settled> {
  const { treasury, state } = tick;
  const { deps } = tick;
  const { log } = deps;
  const chainId = treasury.network.chainId;
  const tellOnce = (what: string, fields: Record<string, unknown>, message: string) => {
    if (state.told.has(`${what}/${hash}`)) return;
    state.told.add(`${what}/${hash}`);
    log.warn({ chainId, tx: hash, ...fields }, message);
  };
  // The lease lost: the instance that holds it now sends and follows it; held: nothing is sent.
  if (tick.lease.signal.aborted || (await heldNow(deps, chainId, state))) return { state: 'pending' };
  // The row's own transactions: the first recorded, and each replacement at its nonce with
  // higher fees. Whichever is mined pays the row, once; the newest is the one sent again.
  const replacements = await deps.treasuryTxs.replacements(row.table, row.id);
  const own = [{ hash, raw }, ...replacements.map((r) => ({ hash: r.hash as Hex, raw: r.raw as Hex }))];
  const latest = own[own.length - 1]!;
  try {
    await treasury.send(latest.raw);
  } catch (error) {
    // A node refusing it now (its fee, a full pool) says nothing about whether it was mined.
    tellOnce('send', { err: error }, 'the node refused a recorded treasury transaction; it is sent again each tick, and its receipt looked for');
  }
  try {
    for (const tx of own) {
      const receipt = await treasury.receipt(tx.hash);
      if (!receipt) continue;
      if (!(await counted(treasury, receipt))) return { state: 'pending' };
      forget(state, hash);
      if (tx.hash !== hash) {
        await deps.treasuryTxs.adoptMined(row.table, row.id, tx, deps.now());
        log.info(
          { chainId, [row.table]: row.id, tx: tx.hash, first: hash, replacements: replacements.length },
          'a replacement of a treasury transaction was mined: it pays the row, once',
        );
      }
      if (receipt.status !== 'success')
        return {
          state: 'failed',
          receipt,
          failure: `the transaction ${tx.hash} reverted on chain (for a swap: the pool would give less than the minimum, the price moved past the slippage limit)`,
        };
      // Done only when the token moved the amount: a token that answers false instead
      // of reverting gives a successful receipt and moves nothing, and logs no Transfer.
      const moved = transfer ? treasury.moved(receipt, transfer.token, transfer.to, transfer.amount) : undefined;
      if (transfer && moved! < transfer.amount) {
        log.error(
          { chainId, [row.table]: row.id, tx: tx.hash, token: transfer.token, moved: String(moved), amount: String(transfer.amount) },
          'a treasury transfer succeeded on chain but the token moved less than its amount (a token that answers false): failed, its money returned',
        );
        return {
          state: 'failed',
          receipt,
          failure: `the token ${transfer.token} did not move the amount in ${tx.hash}: its receipt has a Transfer of ${moved} to ${transfer.to}, not ${transfer.amount} (the token answered false instead of reverting)`,
        };
      }
      return { state: 'ok', receipt };
    }
    const nonce = Treasury.nonceOf(raw);
    if (!(await treasury.nonceUsed(nonce))) {
      // Below it, a nonce nothing fills (a transaction of the treasury a reorganisation took
      // away, not recorded): it cannot be mined until one is.
      if ((await treasury.rpc.getTransactionCount({ address: treasury.address, blockTag: 'pending' })) < nonce) {
        tellOnce(
          'gap',
          { nonce },
          "a treasury transaction waits on a nonce below it that none of the treasury's transactions in the pool fills: it stays pending until one does (look at the chain)",
        );
        return { state: 'pending' };
      }
      await reprice(tick, row, latest, replacements.at(-1)?.signedMs ?? (await deps.treasuryTxs.recordedTx(row.table, row.id)).signedMs ?? 0, tellOnce);
      return { state: 'pending' };
    }
    const taker = await nonceTakenBy(
      deps.treasuryTxs,
      treasury,
      nonce,
      own.map((tx) => tx.hash),
    );
    if (taker) {
      forget(state, hash);
      return {
        state: 'failed',
        failure: `the transaction ${hash} was never mined: the treasury's transaction ${taker.hash} took its nonce ${nonce} in block ${taker.block}`,
      };
    }
    tellOnce(
      'nonce',
      { nonce },
      'a treasury transaction has no receipt though its nonce is used, and no other recorded transaction of the treasury is mined at that nonce: it stays pending (a node behind on its index, or the treasury key used elsewhere: look at the chain)',
    );
    return { state: 'pending' };
  } catch (error) {
    tellOnce('rpc', { err: error }, 'the node did not answer about a treasury transaction; it waits');
    return { state: 'pending' };
  }
}

/** Whether the operator holds the chain's money movements now; told once per hold. */
async function heldNow(deps: Pick<TreasuryDeps, 'treasuryHolds' | 'log'>, chainId: number, state: SenderState): Promise<boolean> {
  const hold = await deps.treasuryHolds.active(chainId);
  if (!hold) return false;
  const key = `hold/${chainId}/${hold.sinceMs}`;
  if (!state.told.has(key)) {
    state.told.add(key);
    deps.log.warn(
      { chainId, reason: hold.reason, since: new Date(hold.sinceMs).toISOString() },
      "the chain's money movements are held: the treasury sends nothing (withdrawals, refunds, swaps, partner transfers wait) until the operator resolves it",
    );
  }
  return true;
}

function forget(state: SenderState, hash: Hex): void {
  for (const what of ['send', 'gap', 'nonce', 'rpc', 'cap']) state.told.delete(`${what}/${hash}`);
}

/**
 * Replaces a treasury transaction waiting unmined for `treasuryReplaceAfterMs`: the
 * same call at its nonce with higher fees (Treasury.replacement), recorded before it is sent and
 * only while this instance holds the lease. At the network's fee cap it waits, told once: the
 * head of the queue is then visible in /readyz and /metrics (treasury_stuck_seconds).
 */
async function reprice(
  tick: Tick,
  row: { table: TreasuryTable; id: string },
  latest: { hash: Hex; raw: Hex },
  signedMs: number,
  tellOnce: (what: string, fields: Record<string, unknown>, message: string) => void,
): Promise<void> {
  const { deps, treasury } = tick;
  const after = deps.treasuryReplaceAfterMs;
  // Undefined (a sender made by hand in a test): never re-priced.
  if (after === undefined || deps.now() - signedMs < after) return;
  if (!(await tick.lease.renew())) return;
  const next = await treasury.replacement(latest.raw);
  if (!next) {
    tellOnce(
      'cap',
      { maxFeePerGas: String(Treasury.maxFeeOf(latest.raw)), cap: String(treasury.network.maxFeePerGas) },
      "a treasury transaction waits unmined at the network's fee cap (maxFeeGwei): it is not re-priced higher",
    );
    return;
  }
  const chainId = treasury.network.chainId;
  if (!(await deps.treasuryTxs.recordReplacement(chainId, row.table, row.id, next, deps.now()))) return;
  deps.log.info(
    { chainId, [row.table]: row.id, tx: next.hash, replaces: latest.hash, nonce: next.nonce, maxFeePerGas: String(Treasury.maxFeeOf(next.raw)) },
    'a treasury transaction not mined in time, signed again at its nonce with higher fees',
  );
  await treasury
    .send(next.raw)
    .catch((error: unknown) =>
      tellOnce('send', { err: error }, 'the node refused a recorded treasury transaction; it is sent again each tick, and its receipt looked for'),
    );
}
