// The rules of a refund on `wallet` settlement, without I/O: the service holds none of
// the money, so the merchant sends it from its own wallet, and the service believes a transfer
// only as the chain shows it. What a transaction must hold to pay a refund, and when it counts.
import { invalidField } from '../domain/errors.ts';

/** The ERC-20 Transfer event's topic: keccak256("Transfer(address,address,uint256)"). */
export const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

/** A log as a receipt or eth_getLogs gives it. */
export interface ChainLog {
  address: string;
  topics: readonly string[];
  data: string;
  logIndex?: number | null;
}

/** The refund's transfer: this token, to this address, this many base units. */
export interface WantedTransfer {
  token: string;
  to: string;
  amount: bigint;
}

/** A log read as an ERC-20 Transfer (token, to, value), or undefined when it is none. */
export function transferOf(log: ChainLog): { token: string; to: string; value: bigint } | undefined {
  if (log.topics.length !== 3 || log.topics[0]?.toLowerCase() !== TRANSFER_TOPIC) return undefined;
  if (!/^0x[0-9a-fA-F]{64}$/.test(log.data)) return undefined;
  return { token: log.address.toLowerCase(), to: '0x' + log.topics[2]!.slice(-40).toLowerCase(), value: BigInt(log.data) };
}

/**
 * Whether the logs hold a Transfer of the refund's token to its address of at least its amount
 * (a merchant naming its transaction: a larger transfer refunds the customer no less). `exact`:
 * of exactly its amount (what the watcher takes, as the EIP-681 URI asks for).
 */
export function paysRefund(logs: readonly ChainLog[], wanted: WantedTransfer, exact = false): boolean {
  return logs.some((log) => {
    const t = transferOf(log);
    return (
      t !== undefined &&
      t.token === wanted.token.toLowerCase() &&
      t.to === wanted.to.toLowerCase() &&
      (exact ? t.value === wanted.amount : t.value >= wanted.amount)
    );
  });
}

/**
 * A transaction the merchant names as its refund, checked against its receipt: mined and
 * succeeded, and a Transfer log of the refund's token to its address of at least its amount.
 * 400 naming `tx_hash`, saying which part is missing.
 */
export function checkRefundReceipt(
  receipt: { status: 'success' | 'reverted'; logs: readonly ChainLog[] } | undefined,
  wanted: WantedTransfer,
  amountText: string,
): void {
  if (!receipt)
    throw invalidField(
      'tx_hash',
      "expected a transaction mined on the refund's network: none is found by this hash (not mined yet, or another network's); send it again once it is mined",
    );
  if (receipt.status !== 'success') throw invalidField('tx_hash', 'expected a transaction that succeeded: this one reverted, so nothing was sent');
  const transfers = receipt.logs.map(transferOf).filter((t) => t !== undefined);
  const ofToken = transfers.filter((t) => t.token === wanted.token.toLowerCase());
  if (ofToken.length === 0) throw invalidField('tx_hash', `expected a transfer of the refund's token (${wanted.token}): this transaction moves none of it`);
  const toThem = ofToken.filter((t) => t.to === wanted.to.toLowerCase());
  if (toThem.length === 0)
    throw invalidField('tx_hash', `expected a transfer to the refund's address (${wanted.to}): this transaction sends the token elsewhere`);
  if (!toThem.some((t) => t.value >= wanted.amount))
    throw invalidField('tx_hash', `expected a transfer of at least ${amountText}: this transaction sends less`);
}

/** Whether a transfer in `block` has the network's confirmations at `head` (its own block counted). */
export const confirmedAt = (block: bigint, head: bigint, confirmations: number): boolean => head - block + 1n >= BigInt(confirmations);
