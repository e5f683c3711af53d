// A browser wallet's one request that matters here (EIP-1193): send `units` of an ERC-20
// `token` to `to` on `chainId`, switching chain first. The checkout pays with it, and the
// dashboard sends a wallet-settled refund with it. No DOM, no wallet library: the caller finds
// the wallet (EIP-6963 on its page) and passes it in.

export interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}
export interface FoundWallet {
  name: string;
  provider: Eip1193;
}

/** An ABI word: `hex` without its 0x, padded to 32 bytes. */
export const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');

/** Whether the wallet is on `chainId`; with `go`, asks it to switch there when it is not (throws its refusal). */
export async function onChain(wallet: Eip1193, chainId: number, go?: boolean): Promise<boolean> {
  const chain = `0x${chainId.toString(16)}`;
  // biome-ignore lint/suspicious/noDoubleEquals: a wallet that answers the chain id as a number (137 == '0x89') is on the chain
  if ((await wallet.request({ method: 'eth_chainId' })) == chain) return true;
  if (go) await wallet.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: chain }] });
  return false;
}

/**
 * Asks the wallet to send `units` of `token` to `to` on `chainId`: an ERC-20 transfer call.
 * Answers the transaction hash; throws the wallet's error (code 4001: the person declined).
 */
export async function payFromWallet(wallet: Eip1193, chainId: number, token: string, to: string, units: bigint): Promise<string> {
  const [from] = (await wallet.request({ method: 'eth_requestAccounts' })) as string[];
  await onChain(wallet, chainId, true);
  return (await wallet.request({
    method: 'eth_sendTransaction',
    params: [{ from, to: token, data: `0xa9059cbb${word(to)}${word(units.toString(16))}` }],
  })) as string;
}
