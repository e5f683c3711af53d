// A live key's new destinations of money, waiting for the operator's delay (storage/
// destinations.ts): the list, for the merchant's server and the dashboard's Settings, and the
// owner's cancel. Secret key or the dashboard's session, of the change's own mode.
import { ok } from '../http/respond.ts';
import { changeView } from '../storage/destinations.ts';
import type { Handler } from './context.ts';

export const listChanges: Handler = async ({ account, service }) =>
  ok(200, (await service.destinations.pending(account, service.now())).map(changeView), 'Changes waiting');

export const cancelChange: Handler = async ({ params, account, service }) => {
  const change = await service.destinations.cancel(account, params.id, service.now());
  service.log.info({ merchant: account.merchant.id, change: change.id, kind: change.kind }, 'destination change cancelled');
  return ok(200, changeView(change), 'Change cancelled: it will not take effect');
};
