// A payment's case sent back in one step (refunds/exceptions.ts): the amount its
// `attention` names, in its coin on its chain, to the customer's address or through a claim link.
import * as z from 'zod/mini';
import { SendBackBody } from '../../contract/attention.ts';
import { is, REFERENCE_PATTERN } from '../../contract/fields.ts';
import { answer } from '../../contract/api.ts';
import { Refund } from '../../contract/refunds.ts';
import { ok } from '../http/respond.ts';
import { caseOf } from '../payments/attention-rules.ts';
import { sendBack } from './exceptions.ts';
import { askedAddress, asker, assertWalletReady, claimAnswer } from './asking.ts';
import { refundView } from './views.ts';
import type { Handler as AnyHandler, Schemas, ServiceParts } from '../api/context.ts';
import type { Account } from '../domain/account.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses =
  | 'attention'
  | 'catalog'
  | 'destinations'
  | 'mail'
  | 'now'
  | 'origin'
  | 'ownAddresses'
  | 'payments'
  | 'rates'
  | 'refunds'
  | 'refundTransactions'
  | 'treasury'
  | 'walletRefunds';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const ByReference = z.object({ reference: is<string>((v) => typeof v === 'string' && REFERENCE_PATTERN.test(v), '1 to 64 letters, digits or . _ : -') });

/**
 * The chain a send-back's wallet was let through on, for a live key's new wallet waiting the
 * delay: the case's (money sent on the wrong chain goes back there), not the payment's; the case
 * is decided again under the lock (sendBack). Undefined: nothing to wait for.
 */
async function walletCheckedOn(service: Pick<ServiceParts, Uses>, account: Account, reference: string, address: string | undefined) {
  if (!address || !service.destinations.waits(account)) return undefined;
  const payment = await service.payments.find(account, reference);
  if (!payment || (await service.walletRefunds.settlementOf(account, reference)) === 'wallet') return undefined;
  const facts = (await service.attention.facts([payment])).get(payment.id)!;
  const checkedOn = caseOf(facts.payment, facts.open, service.now())?.chainId ?? payment.chainId;
  await assertWalletReady(service, account, checkedOn, address);
  return checkedOn;
}

export const sendBackRoute: Handler<{ params: typeof ByReference; body: typeof SendBackBody }> = async ({ params, body, account, service }) => {
  const address = askedAddress(body.address);
  const checkedOn = await walletCheckedOn(service, account, params.reference, address);
  const { role, context } = await asker(service, account, params.reference, address);
  const request = { reference: params.reference, reason: body.reason.trim(), address, role, checkedOn };
  const ports = exceptionPorts(service, account);
  const { refund, claimToken } = await sendBack(service.refundTransactions, ports, account, request, context, service.now(), refundView);
  if (!claimToken) return ok(201, refundView(refund), 'Sent back: the treasury sends it');
  return claimAnswer(service, account, refund, claimToken, role, 'Sent back once the customer names their wallet');
};

/** What sending back needs beyond the refunds' stores: the mode's coins by chain and token. */
const exceptionPorts = (service: Pick<ServiceParts, 'catalog'>, account: Account) => {
  const coins = service.catalog.coins(account.mode);
  return {
    coinOf: (chainId: number, token: string) => coins.find((c) => c.chainId === chainId && c.contractAddress.toLowerCase() === token.toLowerCase()),
  };
};

export const routes = [
  route({
    method: 'POST',
    path: '/api/v1/payments/:reference/send_back',
    auth: 'merchant',
    permission: 'refunds.write',
    stepUp: 'live',
    handler: sendBackRoute,
    tag: 'Refunds',
    summary: 'send back what a payment needs your attention for, in one step',
    description:
      "Refunds exactly the payment's `attention.amount` of `attention.coin` on `attention.chain_id`: `overpaid`, the excess (never past what arrived less what is refunded already: 409 `refund_exceeds_received` naming `amount`); `partial`, all it received and is not refunded yet; `late`, `wrong_coin`, `wrong_chain`, the transfers of that coin on that chain that could not count, in that coin on that chain (apart from what the payment itself can give back). `reason`, and `address` (the customer's wallet) or none: a claim link, as POST /api/v1/refunds (a support member's goes to the payment's customer e-mail only). A refund like any other (its states, `REFUND_UPDATED` events, the support limit, the daily withdrawal limit): reserved from the balance and sent by the treasury on `balance` settlement; on `wallet` settlement the service holds none of it, so the answer's `transfer` (EIP-681 `uri`, token, chain, address, amount) is the one transfer to send from your own wallet, found on chain (or named with POST /api/v1/refunds/{id}/transaction), nothing reserved and no new-wallet delay. A token this service does not list cannot be sent back (409 `balance_settlement_required`). The attention is resolved with it; a second send-back finds nothing: 409 `nothing_to_resolve`. Should the refund end `failed` (its transaction reverted or was never mined: the amount back in the balance) or `canceled` (by you before it is sent, or its claim link expired unclaimed), the payment's `attention` is open again, with the same amount, in the same step: accept it or send it back again.",
    params: ByReference,
    body: SendBackBody,
    responses: { 201: answer(Refund) },
    errors: [
      404,
      'permission_denied',
      'destination_pending',
      'nothing_to_resolve',
      'payment_state',
      'nothing_received',
      'refund_exceeds_received',
      'wrong_mode',
      'insufficient_balance',
      'withdrawal_limit_exceeded',
      'balance_settlement_required',
      'treasury_held',
    ],
    movesMoney: true,
  }),
];
