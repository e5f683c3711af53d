// A destination change as the stores answer it, and as the API, the events and the dashboard show it.
import type { DestinationChangeData } from '../../contract/events.ts';
import type { Fields } from '../payouts/rules.ts';

export type DestinationKind = DestinationChangeData['kind'];

export interface DestinationChange {
  id: string;
  kind: DestinationKind;
  state: DestinationChangeData['state'];
  chainId: number | null;
  address: string | null;
  bankAccountId: string | null;
  fields: Fields | null;
  requestedMs: number;
  effectiveMs: number;
}

/** The change as the API, the events and the dashboard show it (bank details are not repeated: the account's id names them). */
export const changeView = (c: DestinationChange): DestinationChangeData => ({
  id: c.id,
  kind: c.kind,
  state: c.state,
  chain_id: c.chainId,
  address: c.address,
  bank_account_id: c.bankAccountId,
  requested_at: new Date(c.requestedMs).toISOString(),
  effective_at: new Date(c.effectiveMs).toISOString(),
});
