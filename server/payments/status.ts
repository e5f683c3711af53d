// A payment's status as verify answers it: money seen on the chain but not yet deep enough shown
// as confirming, never as paid (without a network for the payment's chain nothing is watched, and
// nothing is asked). With `wait`, a request whose answer is still the version the caller holds is
// held open (at most its share of held requests) until the payment changes on any instance, its
// quote runs out, or the wait ends; then it answers what is true now.
import { paymentVersion } from '../../contract/schemas.ts';
import type { Account } from '../domain/account.ts';
import { TooMany } from '../domain/errors.ts';
import type { Catalog } from '../chain/catalog.ts';
import type { ChainStore } from '../chain/store.ts';
import type { PaymentChanges } from '../realtime/changes.ts';
import { paymentKey } from '../realtime/keys.ts';
import type { Payment } from './rules.ts';
import type { PaymentStore } from './store.ts';
import { verificationView } from './views.ts';

/** What a status answer needs of the service. */
export interface StatusParts {
  payments: Pick<PaymentStore, 'get'>;
  catalog: Pick<Catalog, 'network'>;
  chain: Pick<ChainStore, 'confirming'>;
  changes: Pick<PaymentChanges, 'pools' | 'full' | 'wait'>;
  config: { longPoll: boolean };
  now(): number;
}

/** The payment's verification; undefined: the client went away while it waited. */
export async function paymentStatus(
  service: StatusParts,
  account: Account,
  reference: string,
  wait: { seconds: number; since: string } | undefined,
  gone: AbortSignal,
): Promise<ReturnType<typeof verificationView> | undefined> {
  const payment = await service.payments.get(account, reference);
  const network = service.catalog.network(account.mode, payment.chainId);
  const view = async (p: Payment) => {
    const seen = network && (await service.chain.confirming(p.id));
    return verificationView(p, service.now(), account.via === 'secret', seen ? { ...seen, required: network.confirmations } : undefined);
  };
  const answer = await view(payment);
  if (!wait || !service.config.longPoll || paymentVersion(answer) !== wait.since) return answer;
  const pools = service.changes.pools(`${account.merchant.id}/${account.mode}`, account.via, reference);
  const full = service.changes.full(pools);
  if (full) throw new TooMany(`Too many status checks held open ${full.whose} (at most ${full.max}); try again shortly, or check without wait`, 2);
  const untilExpiry = payment.expiresMs - service.now() + 20;
  const waitMs = untilExpiry > 0 ? Math.min(wait.seconds * 1000, untilExpiry) : wait.seconds * 1000;
  await service.changes.wait(paymentKey(account.merchant.id, account.mode, reference), pools, waitMs, gone);
  if (gone.aborted) return undefined;
  // Woken by a change on any instance, or by time: answer what is true now.
  return view(await service.payments.get(account, reference));
}
