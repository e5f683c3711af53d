// A merchant's payout address on a chain as it asks for it: a checksum that holds (one wrong
// letter in a mixed-case address is a typo, and money sent there is lost), a chain of its own
// mode's networks (a test key must never say where live money goes), never one of the service's
// own addresses; then destinations' setPayoutAddress: at once for test keys, after the operator's
// delay for live ones, the owner told and free to cancel it.
import { getAddress, isAddress } from 'viem';
import type { KeyMode } from '../../contract/keys.ts';
import type { Account } from '../domain/account.ts';
import { ChainNotOffered, invalidField } from '../domain/errors.ts';
import type { Catalog } from '../chain/catalog.ts';
import { refuseOwn, type OwnAddresses } from '../chain/own-addresses.ts';
import type { Destinations } from './destinations.ts';

/** What setting a payout address needs of the service. */
export interface PayoutAddressParts {
  catalog: Pick<Catalog, 'network' | 'networks'>;
  ownAddresses: OwnAddresses;
  destinations: Pick<Destinations, 'setPayoutAddress'>;
  now(): number;
}

export async function setPayoutAddress(service: PayoutAddressParts, account: Account, chainId: number, address: string) {
  // All lower case carries no checksum, and viem's strict check takes it; all upper case neither.
  if (!isAddress(address, { strict: true }) && address.slice(2) !== address.slice(2).toUpperCase()) {
    throw invalidField(
      'address',
      `expected a valid EIP-55 checksum (mixed case), or all lower case; did you mean ${getAddress(address.toLowerCase())}? Check the address before money goes there`,
    );
  }
  if (!service.catalog.network(account.mode, chainId)) throw notOffered(service, account.mode, chainId);
  // Deposits are swept there on wallet settlement: never to the service's own addresses.
  // The treasury holds balance-settled merchants' money (a deposit swept there would be no one's);
  // a deposit address would count it as a payment, the gas or fee wallet make it the operator's.
  await refuseOwn(service.ownAddresses, address, 'address', 'a wallet of yours');
  return service.destinations.setPayoutAddress(account, chainId, address, service.now());
}

const notOffered = (service: PayoutAddressParts, mode: KeyMode, chainId: number) => {
  const networks = service.catalog.networks(mode);
  const offered = networks.length ? networks.map((n) => `${n.chainId} (${n.name})`).join(', ') : 'none: no network is configured for them';
  return new ChainNotOffered(`chain_id ${chainId} is not a network of your ${mode} keys; ${mode} keys take payments on chain ${offered}`, [
    { field: 'chain_id', message: `expected a chain of your ${mode} keys' networks` },
  ]);
};
