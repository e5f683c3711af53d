// What the service does first with its networks, before a database is opened: each mode's
// networks as a list, each treasury's key (a live one shared with a test network stops the
// start), and each configured public chain checked against the chain itself before anything is
// taken on it (a dev chain is deployed by whoever started it, moments ago).
import type { Hex, LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { KeyMode } from '../../contract/keys.ts';
import { fieldOf, networkList } from './config.ts';
import { verifyNetwork } from './deploy.ts';
import type { Network } from './networks.ts';
import { refuseSharedTreasuries, treasuryAccount } from './treasury.ts';

interface Given {
  networks?: Partial<Record<KeyMode, Parameters<typeof networkList>[0]>>;
  treasuryKeyFile?: string;
  testTreasuryKeyFile?: string;
  gasKey?: Hex;
  devChain?: { treasuryAccount?: LocalAccount };
}

export async function configuredNetworks(options: Given): Promise<{
  networks: Partial<Record<KeyMode, Network[]>>;
  treasuryAccounts: Map<Network, LocalAccount>;
}> {
  const networks: Partial<Record<KeyMode, Network[]>> = {};
  for (const mode of ['test', 'live'] as const) if (options.networks?.[mode]) networks[mode] = networkList(options.networks[mode]);
  const treasuryAccounts = new Map<Network, LocalAccount>();
  for (const mode of ['test', 'live'] as const) {
    for (const network of networks[mode] ?? []) {
      const keyFile = mode === 'test' ? (options.testTreasuryKeyFile ?? options.treasuryKeyFile) : options.treasuryKeyFile;
      const account = treasuryAccount(network, keyFile, options.devChain?.treasuryAccount);
      if (account) treasuryAccounts.set(network, account);
    }
  }
  refuseSharedTreasuries(networks.live ?? [], networks.test ?? [], treasuryAccounts);
  const gas = options.gasKey ? privateKeyToAccount(options.gasKey).address : undefined;
  for (const mode of ['test', 'live'] as const) {
    for (const [i, network] of (networks[mode] ?? []).entries()) {
      if (!network.dev) await verifyNetwork(network, fieldOf(mode, i, Array.isArray(options.networks?.[mode])), gas);
    }
  }
  return { networks, treasuryAccounts };
}
