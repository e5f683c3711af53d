// Paying with one signature (EIP-3009): the customer's wallet signs TransferWithAuthorization
// in the token's own EIP-712 domain, and the service brings it on chain from its gas wallet
// (POST /api/v1/transaction/relay/{reference}); the customer pays no gas. The typed data is a
// plain object written here, handed to the wallet as JSON (eth_signTypedData_v4): no library.
import type * as z from 'zod/mini';
import type { RelayBody } from '../../contract/relay.ts';
import type { Coin } from '../../contract/schemas.ts';
import { onChain, word, type Eip1193 } from '../../contract/wallet.ts';

export type Signed = z.input<typeof RelayBody>;
/** As signed: addresses, and integers as decimal text. */
type Authorization = Record<keyof Signed['authorization'], string>;

const domainFields = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];
const fields = [
  ['from', 'address'],
  ['to', 'address'],
  ['value', 'uint256'],
  ['validAfter', 'uint256'],
  ['validBefore', 'uint256'],
  ['nonce', 'bytes32'],
].map(([name, type]) => ({ name, type }));

/** What the wallet is asked to sign: TransferWithAuthorization `a`, in `coin`'s EIP-712 domain on its chain. */
export const typedData = (coin: Coin, a: Authorization) => ({
  types: { EIP712Domain: domainFields, TransferWithAuthorization: fields },
  domain: { ...coin.signs, chainId: coin.chainId, verifyingContract: coin.contractAddress },
  primaryType: 'TransferWithAuthorization',
  message: a,
});

/** 32 random bytes, as 0x and 64 hexadecimal digits: an authorization's nonce, used once. */
export const nonce = () => '0x' + [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The account the wallet already shares with this page, when the wallet is on `coin`'s chain
 * and it holds at least `units` of `coin` there; asks nothing of the person (no prompt).
 */
export async function holder(wallet: Eip1193, coin: Coin, units: bigint): Promise<string | undefined> {
  const [from] = (await wallet.request({ method: 'eth_accounts' })) as string[];
  if (!from || !(await onChain(wallet, coin.chainId))) return;
  const held = await wallet.request({ method: 'eth_call', params: [{ to: coin.contractAddress, data: `0x70a08231${word(from)}` }, 'latest'] });
  return BigInt(held as string) >= units ? from : undefined;
}

/**
 * Asks the wallet to sign a transfer of `units` of `coin` to `to`, valid until `validBefore`
 * (seconds): the relay's body. Throws the wallet's error (code 4001: the person declined).
 */
export async function signTransfer(wallet: Eip1193, coin: Coin, to: string, units: bigint, validBefore: number): Promise<Signed> {
  const [from] = (await wallet.request({ method: 'eth_requestAccounts' })) as string[];
  await onChain(wallet, coin.chainId, true);
  const authorization = { from: from!, to, value: `${units}`, validAfter: '0', validBefore: `${validBefore}`, nonce: nonce() };
  const signature = await wallet.request({ method: 'eth_signTypedData_v4', params: [from, JSON.stringify(typedData(coin, authorization))] });
  return { chain_id: coin.chainId, authorization, signature } as Signed;
}
