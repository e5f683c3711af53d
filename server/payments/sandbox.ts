// The sandbox's deposit for a test payment: only test keys, only with the sandbox on. Where the
// mode has networks, a real transfer from the dev chain's funded account on the payment's (dev)
// chain, found by the watcher like any other, so the payment stays pending until it has its
// confirmations; with none, a credit simulated in the payment's own token as it stands.
import { randomBytes } from 'node:crypto';
import type { Account } from '../domain/account.ts';
import { ChainNotOffered, SandboxUnavailable } from '../domain/errors.ts';
import type { Catalog } from '../chain/catalog.ts';
import type { DevChainPowers } from '../chain/networks.ts';
import type { Crediting } from './crediting.ts';
import { assertTakesDeposits, sandboxAmount, type Payment } from './rules.ts';
import type { PaymentStore } from './store.ts';
import { depositReport } from './views.ts';

/** What the sandbox needs of the service. */
export interface SandboxParts {
  payments: Pick<PaymentStore, 'get'>;
  catalog: Pick<Catalog, 'network' | 'networks'>;
  crediting: Pick<Crediting, 'credit'>;
  devChain?: DevChainPowers;
  config: { sandbox: boolean };
  now(): number;
}

/** The payment as it stands, and whether the deposit was sent on the dev chain or simulated. */
export async function depositInSandbox(
  service: SandboxParts,
  account: Account,
  reference: string,
  kind: Parameters<typeof sandboxAmount>[1],
): Promise<{ payment: Payment; sent: 'on chain' | 'simulated' }> {
  if (account.mode !== 'test') throw new SandboxUnavailable('The sandbox only takes test keys (pk_test_…): a live payment needs a real transfer');
  if (!service.config.sandbox) throw new SandboxUnavailable('The sandbox is switched off on this service: send a real transfer on the test network');
  const quoted = await service.payments.get(account, reference);
  if (service.catalog.networks(account.mode).length > 0) {
    const network = service.catalog.network(account.mode, quoted.chainId);
    if (!network)
      throw new ChainNotOffered(`Transaction ${quoted.reference} is on chain ${quoted.chainId}, which this service no longer watches: start a new payment`);
    if (!network.dev) throw new SandboxUnavailable(`The sandbox sends nothing on ${network.name}: pay with a real transfer there`);
    if (!service.devChain)
      throw new SandboxUnavailable(`The sandbox has no funded account on ${network.name}: start the dev chain with npm run demo, or pay with a real transfer`);
    assertTakesDeposits(quoted, service.now());
    await service.devChain.transfer(network, quoted.token as `0x${string}`, quoted.address as `0x${string}`, sandboxAmount(quoted, kind));
    return { payment: quoted, sent: 'on chain' };
  }
  const payment = await service.crediting.credit(
    account,
    reference,
    // Simulated in the payment's own token as it stands: a coin changed in between does not count it.
    { chainId: quoted.chainId, token: quoted.token, txHash: '0x' + randomBytes(32).toString('hex'), logIndex: 0, amount: (p) => sandboxAmount(p, kind) },
    service.now(),
    depositReport(service.now),
  );
  return { payment, sent: 'simulated' };
}
