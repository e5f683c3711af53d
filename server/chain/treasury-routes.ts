// The operator's endpoints on the treasury's reconciliation, behind the operator
// token: what the last look found (each coin held against owed, the holds, the operator's
// events), a look now, and lifting a chain's hold with who and why (`treasury` commands).
import { TreasuryResolveBody } from '../../contract/operator.ts';
import { NotFound } from '../domain/errors.ts';
import { ok } from '../http/respond.ts';
import type { TreasuryFinding, TreasuryHold } from '../balances/treasury-hold-store.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'log' | 'now' | 'reconcileTreasuries' | 'treasuryHolds';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

/** A finding on the wire: base units as decimal text. */
const findingView = (f: TreasuryFinding) => ({
  chain_id: f.chainId,
  coin: f.symbol,
  token: f.token,
  held: String(f.held),
  owed: String(f.owed),
  incoming: String(f.incoming),
  outgoing: String(f.outgoing),
  short: String(f.short),
  at_block: String(f.atBlock),
  checked_at: new Date(f.checkedMs).toISOString(),
});

const holdView = (h: TreasuryHold) => ({
  chain_id: h.chainId,
  reason: h.reason,
  detail: h.detail,
  since: new Date(h.sinceMs).toISOString(),
  ...(h.resolvedMs === null ? {} : { resolved_at: new Date(h.resolvedMs).toISOString(), resolved_by: h.resolvedBy, resolved_why: h.resolvedWhy }),
});

export const treasuryStatus: Handler = async ({ service }) => {
  const holds = await service.treasuryHolds.holds();
  return ok(
    200,
    {
      findings: (await service.treasuryHolds.findings()).map(findingView),
      holds: holds.active.map(holdView),
      resolved: holds.resolved.map(holdView),
      events: (await service.treasuryHolds.events()).map((e) => ({
        kind: e.kind,
        chain_id: e.chainId,
        detail: e.detail,
        at: new Date(e.createdMs).toISOString(),
      })),
    },
    'The treasury against the journal',
  );
};

export const reconcileNow: Handler = async ({ service }) => {
  const checks = await service.reconcileTreasuries();
  service.log.info({ chains: checks.length }, "treasury reconciled on the operator's demand");
  return ok(
    200,
    checks.map((c) => ({ chain_id: c.chainId, reversed: c.reversed, findings: c.findings.map(findingView) })),
    'Reconciled now',
  );
};

export const resolveHold: Handler<{ body: typeof TreasuryResolveBody }> = async ({ body, service }) => {
  const resolved = await service.treasuryHolds.resolve(body.chain_id, body.by.trim(), body.why.trim(), service.now());
  if (!resolved)
    throw new NotFound(`chain_id: no money movements are held on chain ${body.chain_id}`, [
      { field: 'chain_id', message: 'expected a chain whose money movements are held' },
    ]);
  service.log.warn(
    { chainId: body.chain_id, by: resolved.resolvedBy, why: resolved.resolvedWhy, reason: resolved.reason },
    'the operator resolved a hold on money movements',
  );
  return ok(200, holdView(resolved), `Money movements on chain ${body.chain_id} resume`);
};

// The operator's API is not in the merchants' reference (api-doc.ts documents /api/v1 only).
export const routes = [
  route({
    method: 'GET',
    path: '/operator/v1/treasury',
    auth: 'operator',
    handler: treasuryStatus,
    summary: "operator token: each treasury against the journal, the holds, the operator's events",
    description: "The last reconciliation's findings per chain and coin (base units), active and resolved holds, the latest events (`treasury status`).",
  }),
  route({
    method: 'POST',
    path: '/operator/v1/treasury/reconcile',
    auth: 'operator',
    handler: reconcileNow,
    summary: 'operator token: reconcile every treasury now',
    description: 'Deep reorganisations looked for and each coin compared, as the job does every `TREASURY_RECONCILE_INTERVAL_MS` (`treasury reconcile`).',
  }),
  route({
    method: 'POST',
    path: '/operator/v1/treasury/holds/resolve',
    auth: 'operator',
    handler: resolveHold,
    body: TreasuryResolveBody,
    summary: "operator token: lift a chain's hold on money movements, saying who and why",
    description: '`{ chain_id, by, why }`; 404 when nothing is held there (`treasury resolve`).',
  }),
];
