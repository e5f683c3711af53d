// Sweeps, where a gas wallet pays for them: each network's deposits go to the payout address
// each was bound to, in batches, from any instance (claims keep two from sweeping one deposit).
import { privateKeyToAccount } from 'viem/accounts';
import { createPublicClient, type PublicClient } from 'viem';
import { gasStanding } from './deploy.ts';
import { networkTransport } from './networks.ts';
import { Sweeper } from './sweeper.ts';
import type { Vanished } from './sweep-recheck.ts';
import type { Job, JobDeps } from '../jobs/job.ts';
import { loopJob } from '../jobs/loop.ts';

/** The parts of JobDeps this job uses: jobs/index.ts hands it these alone. */
export const sweepUses = [
  'networks',
  'gasKey',
  'devChain',
  'sweepIntervalMs',
  'treasuryReconcileIntervalMs',
  'log',
  'chain',
  'treasuryHolds',
  'instance',
  'now',
] as const;

export function sweepJobs(deps: Pick<JobDeps, (typeof sweepUses)[number]>): Job[] {
  return deps.networks.flatMap((network) => {
    const gas = deps.gasKey ? privateKeyToAccount(deps.gasKey) : network.dev ? deps.devChain?.gasAccount : undefined;
    if (deps.sweepIntervalMs <= 0) return [];
    if (!gas) {
      deps.log.warn({ chainId: network.chainId }, 'no gas wallet (GAS_WALLET_KEY): deposits on this network are not swept');
      return [];
    }
    // Final sweeps are looked at again as often as the treasury's reconciliation looks at counted transfers (60 s).
    const recheckMs = deps.treasuryReconcileIntervalMs > 0 ? deps.treasuryReconcileIntervalMs : 60_000;
    const onVanished = async (vanished: Vanished[]) => {
      // A final sweep a reorganisation deeper than the confirmations took away: swept again by
      // itself (told: the log, the operator's events); the treasury's shortfall meanwhile holds
      // the chain, and the hold lifts itself once the new sweep is final (treasury-reconcile.ts).
      for (const v of vanished) {
        const amounts = (ds: Array<{ address: string; token: string; amount: bigint }>) =>
          ds.map((d) => `${d.amount} of ${d.token} at ${d.address}`).join(', ');
        const detail =
          `final sweep ${v.hash} (block ${v.block}) left the chain in a reorganisation deeper than the confirmations` +
          (v.reopened.length ? `; swept again: ${amounts(v.reopened)}` : '') +
          (v.left.length
            ? `; not swept again, the deposit holding less than the sweep moved (its transfer left the chain too, or another sweep moved it to the same payout): ${v.left.map((d) => `${d.address} holds ${d.holds} of ${d.amount} ${d.token}`).join(', ')}; if the treasury stays short, see npm run service -- treasury status`
            : '');
        const fields = { chainId: network.chainId, tx: v.hash, block: String(v.block), reopened: v.reopened.length, left: v.left.length };
        if (v.reopened.length)
          deps.log.warn(fields, 'a final sweep left the chain (a reorganisation deeper than the confirmations); its deposits are swept again');
        else
          deps.log.warn(
            fields,
            'a final sweep left the chain (a reorganisation deeper than the confirmations); its deposits hold less than it moved: nothing swept again',
          );
        await deps.treasuryHolds.event('sweep_vanished', network.chainId, detail, deps.now());
      }
    };
    const sweeper = new Sweeper({ network, store: deps.chain, gas, holder: deps.instance, now: deps.now, recheckMs, onVanished });
    const rpc = createPublicClient({ cacheTime: 0, transport: networkTransport(network) }) as PublicClient;
    let low = false;
    const sweep = async () => {
      // Told once when the gas wallet runs low, and once when it is funded again; /readyz and
      // /metrics say it all the while.
      const standing = await gasStanding(rpc, gas.address);
      if (standing.low !== low) {
        low = standing.low;
        if (low)
          deps.log.error(
            { chainId: network.chainId, gas: gas.address, balance: String(standing.balance), need: String(standing.need) },
            'the gas wallet is running low: fund it, or deposits stop being swept',
          );
        else deps.log.info({ chainId: network.chainId, gas: gas.address }, 'the gas wallet is funded again');
      }
      const done = await sweeper.tick();
      if (done.sent && done.sent.length > 1)
        deps.log.info({ chainId: network.chainId, sends: done.sent.length, tx: done.hash }, 'a sweep waited in the pool and was sent again with higher fees');
      if (done.swept)
        deps.log.info({ chainId: network.chainId, deposits: done.swept, moved: done.moved, tx: done.hash }, 'deposits swept to their payout addresses');
      for (const tx of done.undone ?? [])
        deps.log.warn({ chainId: network.chainId, tx }, 'a sweep left the chain (a reorganisation) or failed when mined again; its deposits are swept again');
      for (const s of done.stuck)
        deps.log.warn(
          { chainId: network.chainId, reference: s.reference, token: s.token, reason: s.reason },
          'a deposit cannot be swept; left out, tried again later',
        );
    };
    return [
      loopJob(`sweep chain ${network.chainId}`, sweep, deps.sweepIntervalMs, (error) =>
        deps.log.warn({ err: error, chainId: network.chainId }, 'sweep failed; retrying'),
      ),
    ];
  });
}
