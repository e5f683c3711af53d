// Paying from a browser wallet, with no wallet library: EIP-6963 finds the wallets the page
// has (each announces itself on window); contract/wallet.ts asks one (EIP-1193) to switch
// chain and send the token transfer. A few JSON-RPC requests; nothing loads until a wallet is there.

import type { FoundWallet } from '../../contract/wallet.ts';

export { payFromWallet, type Eip1193, type FoundWallet } from '../../contract/wallet.ts';

/** The wallets the page announces (EIP-6963), as they announce themselves. */
export function discoverWallets(found: (wallet: FoundWallet) => void): () => void {
  const announce = (event: Event) => {
    const { info, provider } = (event as CustomEvent).detail ?? {};
    if (typeof info?.name === 'string' && typeof provider?.request === 'function') found({ name: info.name.slice(0, 40), provider });
  };
  // (No window outside a browser: the machine's tests run in Node.)
  globalThis.addEventListener?.('eip6963:announceProvider', announce);
  globalThis.dispatchEvent?.(new Event('eip6963:requestProvider'));
  return () => globalThis.removeEventListener?.('eip6963:announceProvider', announce);
}
