// Start-up verification: a NETWORKS_FILE factory that is not this service's factory must be
// refused. verifyNetwork only asks the contract's addressOf() and compares it with the
// formula computed here from that same address: a 41-byte contract that answers one constant
// word to every call (no sweep at all) passes, so deposits would go where no sweep can move them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, getContractAddress, http, pad, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { verifyNetwork, factoryAddress } from '../deploy.ts';
import { create2Addresses } from '../networks.ts';

let chain: DevChain;
let contracts: DevContracts;
beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
}, 60_000);
afterAll(async () => chain?.stop());

it("refuses a factory that is not the service's deposit factory", { timeout: 60_000 }, async () => {
  const reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
  const deployer = devAccount(3);
  const nonce = await reader.getTransactionCount({ address: deployer.address });
  const fake = getContractAddress({ from: deployer.address, nonce: BigInt(nonce) });
  // What verifyNetwork will compute for its sample deposit, from the fake's own address.
  const sample = {
    merchantId: '00000000-0000-0000-0000-000000000000',
    mode: 'check',
    reference: 'start-up',
    payout: '0x000000000000000000000000000000000000dEaD' as Address,
  };
  const answer = pad(create2Addresses(fake).addressFor(sample), { size: 32 }).slice(2);
  const runtime = `7f${answer}60005260206000f3`; // PUSH32 answer; MSTORE at 0; RETURN 32 bytes (41 bytes): to any call
  const init = `0x602980600b6000396000f3${runtime}` as Hex;
  const wallet = createWalletClient({ account: deployer, chain: foundry, transport: http(chain.url) });
  const receipt = await reader.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ data: init }), pollingInterval: 50 });
  expect(receipt.contractAddress?.toLowerCase()).toBe(fake.toLowerCase());
  const network = { ...devNetwork(chain.url, contracts, 1), factory: fake };
  expect(fake.toLowerCase()).not.toBe(factoryAddress().toLowerCase());
  const outcome = await verifyNetwork(network, 'test').then(
    () => 'accepted',
    (e: Error) => e.message,
  );
  console.log(outcome);
  expect(outcome).toMatch(/factory/);
});
