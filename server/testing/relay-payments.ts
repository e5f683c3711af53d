// Payments paid by signature in the relay's chain tests: a payment of 24.50 USD in USDC, a fresh
// customer holding 25 USDC and no ETH who signs what is due to its address, and the relay call.
import { createPublicClient, createWalletClient, http, parseUnits, type Address, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { TestToken } from '../../contracts/artifacts.generated.ts';
import type { Network } from '../chain/networks.ts';
import { authorizationDomain, TRANSFER_WITH_AUTHORIZATION_TYPES } from '../chain/relay-authorization.ts';
import type { caller } from './chain.ts';

/** `funder` mints the customer's USDC (the dev chain's devAccount(3)). */
export function relayPayments(o: {
  call: ReturnType<typeof caller>;
  chainUrl: () => string;
  network: () => Network;
  usdc: () => Address;
  funder: LocalAccount;
}) {
  const reader = () => createPublicClient({ chain: foundry, transport: http(o.chainUrl()) });

  async function sign(payer: LocalAccount, to: Address, value: bigint) {
    const t = (await reader().getBlock()).timestamp;
    const message = { from: payer.address, to, value, validAfter: 0n, validBefore: t + 900n, nonce: generatePrivateKey() };
    const domain = authorizationDomain(o.network(), o.network().tokens.find((x) => x.symbol === 'USDC')!);
    return {
      message,
      signature: await payer.signTypedData({ domain, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization', message }),
    };
  }

  /** A payment of 24.50 USD in USDC, and a fresh customer holding 25 USDC and no ETH, who signs what is due to its address. */
  async function signedPayment(reference: string) {
    const created = await o.call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDC', currency: 'USD', amount: 24.5 });
    if (created.status !== 201) throw new Error(`initialize answered ${created.status}: ${JSON.stringify(created.body)}`);
    const address = created.body.data.address as Address;
    const due = parseUnits(String(created.body.data.cryptoAmount), 6);
    const payer = privateKeyToAccount(generatePrivateKey());
    const minted = await createWalletClient({ account: o.funder, chain: foundry, transport: http(o.chainUrl()) }).writeContract({
      address: o.usdc(),
      abi: TestToken.abi,
      functionName: 'mint',
      args: [payer.address, parseUnits('25', 6)],
    });
    await reader().waitForTransactionReceipt({ hash: minted, pollingInterval: 50 });
    const signed = await sign(payer, address, due);
    return { reference, address, due, payer, signed };
  }

  type Paying = Awaited<ReturnType<typeof signedPayment>>;
  const relay = (p: Paying) =>
    o.call('POST', `/api/v1/transaction/relay/${p.reference}`, {
      chain_id: 31337,
      authorization: {
        ...p.signed.message,
        value: String(p.signed.message.value),
        validAfter: String(p.signed.message.validAfter),
        validBefore: String(p.signed.message.validBefore),
      },
      signature: p.signed.signature,
    });
  return { sign, signedPayment, relay };
}

export type Paying = Awaited<ReturnType<ReturnType<typeof relayPayments>['signedPayment']>>;
