// Paying from a browser wallet, with no wallet library: EIP-6963 finds the wallets the page
// has (each announces itself on window), EIP-1193 asks one to switch chain and send the
// token transfer. A few JSON-RPC requests; nothing loads until a wallet is there.

export interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}
export interface FoundWallet {
  name: string;
  provider: Eip1193;
}

/** The wallets the page announces (EIP-6963), as they announce themselves. */
export function discoverWallets(found: (wallet: FoundWallet) => void): () => void {
  const announce = (event: Event) => {
    const { info, provider } = (event as CustomEvent).detail ?? {};
    if (typeof info?.name == 'string' && typeof provider?.request == 'function') found({ name: info.name.slice(0, 40), provider });
  };
  // (No window outside a browser: the machine's tests run in Node.)
  globalThis.addEventListener?.('eip6963:announceProvider', announce);
  globalThis.dispatchEvent?.(new Event('eip6963:requestProvider'));
  return () => globalThis.removeEventListener?.('eip6963:announceProvider', announce);
}

const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0');

/**
 * Asks the wallet to send `units` of `token` to `to` on `chainId`: an ERC-20 transfer call.
 * Answers the transaction hash; throws the wallet's error (code 4001: the customer declined).
 */
export async function payFromWallet(wallet: Eip1193, chainId: number, token: string, to: string, units: bigint): Promise<string> {
  const [from] = (await wallet.request({ method: 'eth_requestAccounts' })) as string[];
  const chain = `0x${chainId.toString(16)}`;
  if ((await wallet.request({ method: 'eth_chainId' })) != chain) {
    await wallet.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: chain }] });
  }
  return (await wallet.request({
    method: 'eth_sendTransaction',
    params: [{ from, to: token, data: `0xa9059cbb${word(to)}${word(units.toString(16))}` }],
  })) as string;
}
