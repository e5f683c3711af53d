// Refunds on `wallet` settlement: the service holds none of the money, so the merchant
// sends the refund from its own wallet (the answer's EIP-681 URI and QR code name exactly that
// transfer), and nothing is journaled: the service's balance never held it. The service believes
// a transfer only as the chain shows it: the watcher looks for exactly that transfer (the token,
// to the refund's address, its amount, from anyone) in blocks from when it first saw the refund,
// or the merchant names its transaction, checked against its receipt (succeeded, a Transfer of
// that token to that address of at least the amount). One transaction pays one refund only. Sent,
// then confirmed once its block has the network's confirmations, each a REFUND_UPDATED event.
import { formatUnits } from '../../contract/money.ts';
import type { Account } from '../domain/account.ts';
import { NotConfigured, RefundState, RefundTransactionUsed } from '../domain/errors.ts';
import type { StoredRefund } from './rules.ts';
import { checkRefundReceipt, confirmedAt, paysRefund, type WantedTransfer } from './wallet-rules.ts';
import type { WalletChain } from './wallet-chain.ts';
import type { RefundTransactions } from './use-cases.ts';
import type { Sql } from '../storage/db.ts';

type Owner = Pick<Account, 'merchant' | 'mode'>;
const ownerOf = (r: Pick<StoredRefund, 'merchantId' | 'mode'>): Owner => ({
  merchant: { id: r.merchantId } as Owner['merchant'],
  mode: r.mode as Owner['mode'],
});
const wantedOf = (r: StoredRefund): WantedTransfer => ({ token: r.token, to: r.address!, amount: r.amount });

/** A ready refund paid by `txHash`, under its lock: still ready and the hash no other refund's, else refused. */
async function pay(
  store: RefundTransactions,
  tx: Sql,
  nowMs: number,
  id: string,
  txHash: string,
  block: bigint,
  by: 'watcher' | 'merchant',
): Promise<StoredRefund | undefined> {
  const refund = await store.refunds.lock(tx, id);
  if (refund?.state !== 'ready') return undefined;
  if (await store.wallet.used(tx, refund.chainId, txHash, refund.id)) {
    if (by === 'watcher') return undefined;
    throw new RefundTransactionUsed(`tx_hash: ${txHash} pays another refund already; one transaction pays one refund only`, [
      { field: 'tx_hash', message: 'expected a transaction no other refund names' },
    ]);
  }
  return store.wallet.paid(tx, refund.id, refund.chainId, txHash, block, by, nowMs);
}

/**
 * The merchant names the transaction that paid its wallet refund (found as its own: another
 * merchant's, or the other mode's, is 404). Checked on the refund's network before it is believed:
 * mined and succeeded, a Transfer of the refund's token to its address of at least its amount
 * (400 naming `tx_hash`, saying what is missing), no other refund's (409
 * `refund_transaction_used`). Then `sent`, and `confirmed` by the watcher once counted. Naming
 * the transaction it is sent with already answers it again.
 */
export async function markRefundTransaction(
  store: RefundTransactions,
  refund: StoredRefund,
  txHash: string,
  chain: WalletChain | undefined,
  nowMs: number,
  view: (r: StoredRefund) => unknown,
): Promise<StoredRefund> {
  const hash = txHash.toLowerCase();
  if (refund.settlement !== 'wallet')
    throw new RefundState(`Refund ${refund.id} is on balance settlement: the treasury sends it and records its transaction itself`);
  if ((refund.state === 'sent' || refund.state === 'confirmed') && refund.txHash === hash) return refund;
  if (refund.state !== 'ready') {
    throw new RefundState(
      refund.state === 'waiting_for_address'
        ? `Refund ${refund.id} waits for the customer to name the address: there is nothing to send to yet`
        : `Refund ${refund.id} is ${refund.state}: only a refund ready to be sent takes its transaction`,
    );
  }
  if (!chain) throw new NotConfigured(`chain ${refund.chainId} is not configured on this service: the transaction cannot be checked`);
  const receipt = await chain.receipt(hash);
  checkRefundReceipt(
    receipt && { status: receipt.status, logs: receipt.logs },
    wantedOf(refund),
    `${formatUnits(refund.amount, refund.decimals)} ${refund.coin}`,
  );
  return store.db.transaction(async (tx) => {
    const paid = await pay(store, tx, nowMs, refund.id, hash, receipt!.block, 'merchant');
    if (!paid) {
      const now = (await store.refunds.lock(tx, refund.id))!;
      if (now.txHash === hash) return now;
      throw new RefundState(`Refund ${refund.id} is ${now.state} now: only a refund ready to be sent takes its transaction`);
    }
    await store.events.add(tx, ownerOf(paid), 'REFUND_UPDATED', view(paid), nowMs);
    return paid;
  });
}

/**
 * One look at the chains for the wallet refunds open: a ready one's transfer (exactly its
 * amount of its token to its address, in any transaction no other refund's) makes it sent; a
 * sent one becomes confirmed once its block has the network's confirmations and its receipt
 * still pays it, or ready again when its transaction is gone (reorganised away). Answers the
 * refunds moved. `chainOf`: the network's reader, undefined where none is configured.
 */
export async function watchWalletRefunds(
  store: RefundTransactions,
  chainOf: (chainId: number) => WalletChain | undefined,
  nowMs: number,
  view: (r: StoredRefund) => unknown,
): Promise<StoredRefund[]> {
  const moved: StoredRefund[] = [];
  const heads = new Map<number, bigint>();
  for (const { refund, scanFrom, block } of await store.wallet.watched(100)) {
    const chain = chainOf(refund.chainId);
    if (!chain) continue;
    if (!heads.has(chain.chainId)) heads.set(chain.chainId, await chain.head());
    const head = heads.get(chain.chainId)!;
    const depth = BigInt(Math.max(chain.confirmations, 1));
    const tell = async (tx: Sql, r: StoredRefund | undefined) => {
      if (!r) return;
      await store.events.add(tx, ownerOf(r), 'REFUND_UPDATED', view(r), nowMs);
      moved.push(r);
    };
    if (refund.state === 'sent') {
      const receipt = await chain.receipt(refund.txHash!);
      if (receipt?.status !== 'success' || !paysRefund(receipt.logs, wantedOf(refund))) {
        // Gone from the chain: looked for again from a little before where it was.
        const from = (block ?? head) > depth ? (block ?? head) - depth : 0n;
        await store.db.transaction(async (tx) =>
          (await store.refunds.lock(tx, refund.id))?.state === 'sent' ? tell(tx, await store.wallet.unpaid(tx, refund.id, from, nowMs)) : undefined,
        );
      } else if (confirmedAt(receipt.block, head, chain.confirmations)) {
        await store.db.transaction(async (tx) =>
          (await store.refunds.lock(tx, refund.id))?.state === 'sent' ? tell(tx, await store.wallet.confirmed(tx, refund.id, nowMs)) : undefined,
        );
      }
      continue;
    }
    // First sight: looked for from a reorganisation's depth back (a transfer sent at once is found).
    const from = scanFrom ?? (head > 64n ? head - 64n : 0n);
    const to = from + BigInt(chain.logRange) - 1n < head ? from + BigInt(chain.logRange) - 1n : head;
    const found = from <= to ? (await chain.transfersTo(refund.token, refund.address!, from, to)).filter((t) => t.value === refund.amount) : [];
    let paid: StoredRefund | undefined;
    for (const t of found) {
      paid = await store.db.transaction(async (tx) => {
        const p = await pay(store, tx, nowMs, refund.id, t.txHash, t.block, 'watcher');
        await tell(tx, p);
        return p;
      });
      if (paid) break;
    }
    // The last blocks looked at again next time (a transfer in them may still move); never back past where it began.
    if (!paid) await store.wallet.scanned(refund.id, refund.chainId, to === head ? (head - depth + 1n > from ? head - depth + 1n : from) : to + 1n, nowMs);
  }
  return moved;
}
