// Refunds on `wallet` settlement: the merchant's wallet sends the refund, so the
// merchant gets its transfer as a QR code (the answer's `transfer.uri`, EIP-681) and may name
// the transaction it sent it in, which the service checks on chain before believing it (the
// watcher, refunds/wallet-job.ts, also finds it unasked). Each key sees only its own
// merchant's refunds of its own mode: another's, or the other mode's, is not found.
import * as z from 'zod/mini';
import { is } from '../../contract/fields.ts';
import { answer } from '../../contract/api.ts';
import { Refund } from '../../contract/refunds.ts';
import { Qr } from '../../contract/schemas.ts';
import { RefundState } from '../domain/errors.ts';
import { ok } from '../http/respond.ts';
import { qrView } from '../payments/qr.ts';
import { markRefundTransaction } from './wallet.ts';
import { walletChain } from './wallet-chain.ts';
import { refundView } from './views.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'catalog' | 'now' | 'refundTransactions' | 'refunds';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

export const TransactionBody = z.object({
  tx_hash: is<string>((v) => typeof v === 'string' && /^0x[0-9a-fA-F]{64}$/.test(v), 'a transaction hash: 0x followed by 64 hexadecimal digits'),
});

export const markTransaction: Handler<{ body: typeof TransactionBody }> = async ({ params, body, account, service }) => {
  const refund = await service.refunds.refund(account, params.id);
  const network = service.catalog.network(account.mode, refund.chainId);
  const marked = await markRefundTransaction(service.refundTransactions, refund, body.tx_hash, network && walletChain(network), service.now(), refundView);
  return ok(200, refundView(marked), "Refund sent: its transaction checked on chain; confirmed once its block has the network's confirmations");
};

export const refundQr: Handler = async ({ params, account, service }) => {
  const { transfer } = refundView(await service.refunds.refund(account, params.id));
  if (!transfer)
    throw new RefundState(
      `Refund ${params.id} has no transfer for your wallet to send: it is on balance settlement (the treasury sends it), or waits for the customer to name the address`,
    );
  return ok(200, qrView(transfer.uri), 'QR code');
};

const tag = 'Refunds' as const;

export const routes = [
  route({
    method: 'POST',
    path: '/api/v1/refunds/:id/transaction',
    auth: 'merchant',
    permission: 'refunds.write',
    handler: markTransaction,
    tag,
    body: TransactionBody,
    summary: 'name the transaction your wallet sent a wallet-settled refund in',
    description:
      "`{ tx_hash }`: on `wallet` settlement your own wallet sends the refund (its `transfer`); the service finds that transfer on chain by itself, or you name it here. It is checked on the refund's network before it is believed: mined and succeeded, and a Transfer of the refund's token to its address of at least its amount (400 naming `tx_hash`, saying which is missing); a transaction another refund names already is 409 `refund_transaction_used`. Then `sent`, and `confirmed` once its block has the network's confirmations, each a `REFUND_UPDATED` event. Naming the same transaction again answers the refund. 409 `refund_state` for a balance-settled refund, one waiting for its address, or one sent already.",
    responses: { 200: answer(Refund) },
    errors: [404, 'refund_state', 'refund_transaction_used', 'not_configured'],
  }),
  route({
    method: 'GET',
    path: '/api/v1/refunds/:id/qr',
    auth: 'merchant',
    permission: 'payments.read',
    handler: refundQr,
    tag,
    summary: "a wallet-settled refund's transfer as a QR code (an SVG path)",
    description:
      "The refund's `transfer.uri` (EIP-681: the token, chain, address and amount in base units) as a QR code for your wallet to scan: `uri` is the URI, `path` draws its dark modules. 409 `refund_state` when there is no transfer for your wallet to send (balance settlement, or the address not named yet).",
    responses: { 200: answer(Qr) },
    errors: [404, 'refund_state'],
  }),
];
