// A payment's case sent back in one step (refunds/exceptions.ts): the amount its
// `attention` names, in its coin on its chain, to the customer's address or through a claim link.
import { getAddress, isAddress } from 'viem';
import * as z from 'zod/mini';
import { SendBackBody } from '../../contract/attention.ts';
import { is, REFERENCE_PATTERN } from '../../contract/fields.ts';
import { answer } from '../../contract/api.ts';
import { Refund } from '../../contract/refunds.ts';
import type { CoinSymbol } from '../../contract/fields.ts';
import { DestinationPending, invalidField } from '../domain/errors.ts';
import { ok } from '../http/respond.ts';
import { caseOf } from '../payments/attention-rules.ts';
import { sendBack } from './exceptions.ts';
import { treasuryContext } from './routes.ts';
import { refundView } from './views.ts';
import { checkSupportClaim } from './rules.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
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
  | 'treasury'
  | 'walletRefunds';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const ByReference = z.object({ reference: is<string>((v) => typeof v === 'string' && REFERENCE_PATTERN.test(v), '1 to 64 letters, digits or . _ : -') });

export const sendBackRoute: Handler<{ params: typeof ByReference; body: typeof SendBackBody }> = async ({ params, body, account, service }) => {
  let address: string | undefined;
  let checkedOn: number | undefined;
  if (body.address !== undefined) {
    if (!isAddress(body.address, { strict: true }) && body.address.slice(2) !== body.address.slice(2).toLowerCase()) {
      throw invalidField(
        'address',
        `expected a valid EIP-55 checksum (mixed case), or all lower case; did you mean ${getAddress(body.address.toLowerCase())}?`,
      );
    }
    address = getAddress(body.address.toLowerCase());
  }
  const payment = await service.payments.find(account, params.reference);
  // A live key's wallet never sent to from the balance waits the operator's delay, as a refund's
  // does: on the chain the money goes back on, the case's (money sent on the wrong chain goes
  // back there), not the payment's. The case is decided again under the lock (sendBack). On
  // wallet settlement the merchant's own wallet sends it: no wallet of the balance to protect.
  if (address && payment && service.destinations.waits(account) && (await service.walletRefunds.settlementOf(account, params.reference)) !== 'wallet') {
    const facts = (await service.attention.facts([payment])).get(payment.id)!;
    checkedOn = caseOf(facts.payment, facts.open, service.now())?.chainId ?? payment.chainId;
    const wallet = await service.destinations.withdrawalAddress(account, checkedOn, address, service.now());
    if (!wallet.ready) {
      const at = new Date(wallet.change.effectiveMs).toISOString();
      throw new DestinationPending(
        `address: ${address} has never received money of your live balance; it is registered now and can receive from ${at} (change ${wallet.change.id}). Ask again from then; nothing was reserved or sent`,
        [{ field: 'address', message: `expected a wallet registered at least the delay ago; this one can receive from ${at}` }],
      );
    }
  }
  const role = account.actor?.kind === 'member' ? account.actor.role : undefined;
  checkSupportClaim(role, {
    hasAddress: address !== undefined,
    reachesCustomer: role === 'support' && !address && (await service.mail.reachesCustomer(account.merchant.id, account.mode, params.reference)),
  });
  const coins = service.catalog.coins(account.mode);
  const ports = {
    attention: (tx: Parameters<typeof service.attention.within>[0], nowMs: number) => service.attention.within(tx, nowMs),
    coinOf: (chainId: number, token: string) => coins.find((c) => c.chainId === chainId && c.contractAddress.toLowerCase() === token.toLowerCase()),
  };
  const context = {
    ...treasuryContext({ treasury: service.treasury, ownAddresses: service.ownAddresses }, account.mode),
    usdPerCoin: (symbol: string) => service.rates.usdPerCoin(symbol as CoinSymbol),
    supportLimitCents: role === 'support' ? await service.refunds.supportLimitCents(account.merchant.id, account.mode) : undefined,
  };
  const { refund, claimToken } = await sendBack(
    service.refunds,
    ports,
    account,
    { reference: params.reference, reason: body.reason.trim(), address, role, checkedOn },
    context,
    service.now(),
    refundView,
  );
  if (!claimToken) return ok(201, refundView(refund), 'Sent back: the treasury sends it');
  const claimUrl = `${service.origin()}/refund#${claimToken}`;
  const emailed = await service.mail.customerRefundLink(
    account.merchant.id,
    account.mode,
    { reference: refund.reference, amount: refundView(refund).amount_exact, coin: refund.coin },
    claimUrl,
  );
  // Support never holds the link: it went to the customer only.
  if (role === 'support')
    return ok(
      201,
      refundView(refund),
      `Sent back once the customer names their wallet: ${emailed ? "the link was e-mailed to the payment's customer e-mail" : 'the link could not be e-mailed; cancel it and ask an owner, admin or finance member'}`,
    );
  return ok(
    201,
    { ...refundView(refund), claim_url: claimUrl },
    `Sent back once the customer names their wallet: ${emailed ? "the link was e-mailed to the payment's customer e-mail; " : ''}give them claim_url (shown this once)`,
  );
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
    limits: { movesMoney: true },
  }),
];
