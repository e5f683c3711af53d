// A live key's new destinations of money, waiting for the operator's delay (storage/
// destinations.ts): the list, for the merchant's server and the dashboard's Settings, and the
// owner's cancel. Secret key or the dashboard's session, of the change's own mode.
import * as z from 'zod/mini';
import { answer, DestinationChange } from '../../contract/api.ts';
import { is } from '../../contract/fields.ts';
import { isUuid } from '../../contract/payment-links.ts';
import { ok } from '../http/respond.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';
import { changeView } from './destination-views.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'destinations' | 'log' | 'now';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const ByChange = z.object({ id: is<string>(isUuid, 'a change id (a UUID, as the list and the PENDING events give it)') });

export const listChanges: Handler = async ({ account, service }) =>
  ok(200, (await service.destinations.pending(account, service.now())).map(changeView), 'Changes waiting');

export const cancelChange: Handler<{ params: typeof ByChange }> = async ({ params, account, service }) => {
  const change = await service.destinations.cancel(account, params.id, service.now());
  service.log.info({ merchant: account.merchant.id, change: change.id, kind: change.kind }, 'destination change cancelled');
  return ok(200, changeView(change), 'Change cancelled: it will not take effect');
};

export const routes = [
  route({
    method: 'GET',
    path: '/api/v1/destination_changes',
    auth: 'merchant',
    permission: 'account.read',
    handler: listChanges,
    tag: 'Webhooks',
    summary: "a live key's new payout addresses, bank accounts and wallets waiting for the delay",
    description:
      "The key's mode's changes still waiting: a payout address replacing one, a bank account or new bank details, a wallet never withdrawn to (live keys only; each waits the operator's delay, and its event was sent when it was asked).",
    responses: { 200: answer(z.array(DestinationChange)) },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/destination_changes/:id',
    auth: 'merchant',
    permission: 'account.write',
    handler: cancelChange,
    tag: 'Webhooks',
    params: ByChange,
    summary: 'cancel a waiting change before it takes effect',
    description:
      "The payout address or bank details are never applied, the wallet never registered, a new bank account deleted. 404 once it took effect, was cancelled, or is another merchant's.",
    responses: { 200: answer(DestinationChange) },
    errors: [404],
  }),
];
