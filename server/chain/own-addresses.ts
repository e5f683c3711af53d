// The service's own addresses: the treasuries, the gas wallet that sweeps, the
// operator's fee addresses, and every payment's deposit address. Money going out (a withdrawal,
// a refund or send-back, a claim link's address, a merchant's payout address that wallet-settled
// deposits are swept to) never goes to one: it would count as a payment, be swept to someone
// else, or become no one's. One check for every path, refused naming the field.
import { invalidField } from '../domain/errors.ts';
import { feeAddressOf } from './catalog.ts';
import type { Network } from './networks.ts';

export interface OwnAddresses {
  /** What `address` is among the configured ones ("the service's treasury", …), or undefined. */
  named(address: string): string | undefined;
  /** The same, or "a deposit address of this service" when any payment, of any merchant or mode, has it. */
  which(address: string): Promise<string | undefined>;
}

/** The phrase a deposit address is named by (refunds/rules.ts's message says why it is refused). */
export const DEPOSIT_ADDRESS = 'a deposit address of this service';

/** Every network's own addresses (of both modes: one key may serve several), and the payments' deposit addresses (asked of their owner, the payments store). */
export function ownAddresses(
  isDepositAddress: (address: string) => Promise<boolean>,
  networks: Network[],
  gasOf: (network: Network) => string | undefined,
): OwnAddresses {
  const known = new Map<string, string>();
  const add = (address: string | undefined, what: string) => {
    if (address && !known.has(address.toLowerCase())) known.set(address.toLowerCase(), what);
  };
  for (const network of networks) add(network.treasury, "the service's treasury");
  for (const network of networks) add(gasOf(network), "the service's gas wallet");
  for (const network of networks) add(feeAddressOf(network), "the operator's fee address");
  const named = (address: string) => known.get(address.toLowerCase());
  return {
    named,
    async which(address) {
      const what = named(address);
      if (what) return what;
      return (await isDepositAddress(address)) ? DEPOSIT_ADDRESS : undefined;
    },
  };
}

/** Refuses an address of the service's own as where money goes: 400 naming `field`, saying what it is. */
export async function refuseOwn(own: OwnAddresses, address: string, field: string, expected: string): Promise<void> {
  const what = await own.which(address);
  if (what)
    throw invalidField(
      field,
      `expected ${expected}, not ${what}${what === DEPOSIT_ADDRESS ? ' (money sent there would count as a payment, or be swept to someone)' : ''}`,
    );
}
