// The merchant's payout address per chain (secret key or the dashboard's session): where wallet
// settlement sweeps its deposits; a live key's new one waits the operator's delay (destinations).
import * as z from 'zod/mini';
import { answer, PayoutAddress, PayoutAddressSet } from '../../contract/api.ts';
import { PayoutAddressBody } from '../../contract/schemas.ts';
import { ok } from '../http/respond.ts';
import { changeView } from './destination-views.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';
import { setPayoutAddress } from './payout-address.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'catalog' | 'destinations' | 'log' | 'merchants' | 'now' | 'ownAddresses';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

/**
 * Where the merchant's deposits on a chain are swept to. A deposit address is bound to it
 * (CREATE2) when the payment is made, so a change applies to payments made after it takes
 * effect: at once for test keys; after the operator's delay in live mode, a chain's first address
 * too. A payment made before keeps the address it was bound to.
 */
export const putPayoutAddress: Handler<{ body: typeof PayoutAddressBody }> = async ({ body, account, service }) => {
  const { effectiveMs, change } = await setPayoutAddress(service, account, body.chain_id, body.address);
  const effectiveAt = new Date(effectiveMs).toISOString();
  if (change) service.log.info({ merchant: account.merchant.id, change: change.id }, 'payout address change pending');
  return ok(
    200,
    {
      chain_id: body.chain_id,
      address: body.address,
      pending: change !== undefined,
      effective_at: effectiveAt,
      ...(change ? { change: changeView(change) } : {}),
    },
    change
      ? `Payout address pending: payments made from ${effectiveAt} are bound to it; until then they are bound to the current one. The owner can cancel it in the dashboard's Settings`
      : 'Payout address saved',
  );
};

/** Each chain's address in effect, and the one waiting to replace it, if any. */
export const getPayoutAddresses: Handler = async ({ account, service }) => {
  const addresses = await service.merchants.payoutAddresses(account.merchant.id, account.mode);
  const waiting = (await service.destinations.pending(account, service.now())).filter((c) => c.kind === 'payout_address');
  return ok(
    200,
    addresses.map(({ chainId, address }) => {
      const pending = waiting.find((c) => c.chainId === chainId);
      return { chain_id: chainId, address, ...(pending ? { pending: changeView(pending) } : {}) };
    }),
    'Payout addresses',
  );
};

export const routes = [
  route({
    method: 'PUT',
    path: '/api/v1/payout_address',
    auth: 'merchant',
    permission: 'account.write',
    stepUp: 'live',
    memberFactor: true,
    handler: putPayoutAddress,
    tag: 'Webhooks',
    summary: "where a chain's deposits are swept to",
    description:
      "`{ chain_id, address }`. A mixed-case address must carry a valid EIP-55 checksum; a chain not of the key's mode is a 409 naming `chain_id`. A payment is bound to its chain's payout address when it is made. Test keys: in effect now. A live key or session, the chain's first address included: `pending` until `effective_at` (the operator's delay, 24 hours by default), a PAYOUT_ADDRESS_PENDING event is sent and e-mailed to the owner, who may cancel it (DELETE /api/v1/destination_changes/{id}); payments made until then keep the current address (a chain with none takes no live payment until then). From a session in live mode, a second factor confirmed within five minutes (a member without one is refused until they add one).",
    body: PayoutAddressBody,
    responses: { 200: answer(PayoutAddressSet) },
    errors: ['chain_not_offered'],
  }),
  route({
    method: 'GET',
    path: '/api/v1/payout_address',
    auth: 'merchant',
    permission: 'account.read',
    handler: getPayoutAddresses,
    tag: 'Webhooks',
    summary: 'the payout address of each chain',
    description: "`address` is the one in effect; `pending`, a live key's new one waiting for its `effective_at`.",
    responses: { 200: answer(z.array(PayoutAddress)) },
  }),
];
