// Explicit dependencies: each routes file declares the parts of the service its
// handlers use (`type Uses`), each job the parts of JobDeps it uses (`…Uses`), exactly, and a
// job is handed its declared parts alone. That a part not declared does not compile is held by
// `npm run typecheck` on server/tests/fixtures/undeclared-part.ts (its @ts-expect-error lines).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JOBS, uses } from '../jobs/index.ts';
import { idempotencyUses } from '../jobs/idempotency.ts';
import type { JobDeps } from '../jobs/job.ts';
import { payoutUses } from '../payouts/job.ts';
import { reconcileUses } from '../chain/reconcile-job.ts';
import { refundUses } from '../refunds/job.ts';
import { walletRefundUses } from '../refunds/wallet-job.ts';
import { emailUses } from '../email/job.ts';
import { chargeUses } from '../subscriptions/charge-job.ts';
import { treasuryReconcileUses } from '../chain/treasury-reconcile-job.ts';
import { finishUses } from '../payments/finish-expired-job.ts';
import { sweepUses } from '../chain/sweep-job.ts';
import { relayUses } from '../chain/relay-job.ts';
import { treasuryUses } from '../balances/treasury-job.ts';
import { watchUses } from '../chain/watch-job.ts';
import { webhookUses } from '../webhooks/job.ts';
import { fromRoot } from '../service/paths.ts';

const read = (path: string) => readFileSync(fromRoot(path), 'utf8');
const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

/** The parts a file reads from `name` (`service.payments`, `const { log } = deps`). */
function partsRead(text: string, name: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  const dotted = [...code.matchAll(new RegExp(`\\b${name}\\.([a-zA-Z]+)`, 'g'))].map((m) => m[1]);
  const destructured = [...code.matchAll(new RegExp(`const \\{([^}]+)\\} = ${name};`, 'g'))].flatMap((m) =>
    m[1].split(',').map((p) => p.trim().split(':')[0].trim()),
  );
  return sorted([...dotted, ...destructured]);
}

/** A routes file's `type Uses = 'a' | 'b';`, or undefined. */
function declared(text: string): string[] | undefined {
  const found = /(^|\n)type Uses =\s*([^;]+);/.exec(text);
  return found
    ? sorted(
        found[2]
          .split('|')
          .map((p) => p.trim().replace(/'/g, ''))
          .filter(Boolean),
      )
    : undefined;
}

/**
 * The parts a routes file hands on: each function it calls with `service` whole, imported from
 * another module of ours, reads there what it reads of its own `service` parameter (a use case of
 * the feature, as refunds/asking.ts's). Those count as the file's reads: it must declare them.
 */
function partsHandedOn(file: string, text: string, seen = new Set<string>()): string[] {
  const from = new Map<string, string>();
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'(\.[^']+)'/g))
    for (const name of m[1].split(',').map((n) => n.trim().replace(/^type\s+/, ''))) if (name) from.set(name, join(dirname(file), m[2]));
  const called = new Set([...text.matchAll(/\b(\w+)\(\s*service\b/g)].map((m) => m[1]));
  // A use case that hands `service` on in turn (a link's payment to initialize's) reads what that one reads too.
  return [...called]
    .filter((name) => from.has(name) && !seen.has(`${from.get(name)}#${name}`))
    .flatMap((name) => {
      const module = from.get(name)!;
      seen.add(`${module}#${name}`);
      const body = read(module);
      return [...partsRead(body, 'service'), ...partsHandedOn(module, body, seen)];
    });
}

describe('routes declare the parts of the service they use', () => {
  // Each feature's routes.ts and *-routes.ts (a folder per feature), and api/'s own docs and health.
  const features = readdirSync(fromRoot('server'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name);
  const files = [
    ...features.flatMap((dir) =>
      readdirSync(fromRoot(join('server', dir)))
        .filter((f) => /^([a-z-]+-)?routes\.ts$/.test(f))
        .map((f) => join('server', dir, f)),
    ),
    'server/api/docs.ts',
    'server/api/health.ts',
  ];

  it("reads a file's declaration and uses (the check can fail)", () => {
    const text = "type Uses = 'now' | 'payments';\nconst h = async ({ service }) => service.payments.get(service.now()); // service.log\n";
    expect(declared(text)).toEqual(['now', 'payments']);
    expect(declared("type Uses =\n  | 'now'\n  | 'payments';\n")).toEqual(['now', 'payments']); // as the formatter wraps a long one
    expect(partsRead(text, 'service')).toEqual(['now', 'payments']);
    expect(partsRead('const { db, log: logger } = deps;\ndeps.now();', 'deps')).toEqual(['db', 'log', 'now']);
    // A use case handed the whole service: what it reads there is the routes file's to declare.
    expect(partsHandedOn('server/refunds/routes.ts', "import { asker } from './asking.ts';\nawait asker(service, account);")).toContain('refunds');
    // Two hands on: the link page's payment is initialize's, which reads the rates.
    expect(
      partsHandedOn('server/links/page-routes.ts', "import { startLinkPayment } from './checkout.ts';\nawait startLinkPayment(service, link, body);"),
    ).toContain('rates');
    expect(files.length).toBeGreaterThan(10);
  });

  it('every routes file declares exactly the parts its handlers and limits read', () => {
    const wrong = files.flatMap((file) => {
      const text = read(file);
      const said = declared(text);
      const used = sorted([...new Set([...partsRead(text, 'service'), ...partsHandedOn(file, text)])]);
      return said && JSON.stringify(said) === JSON.stringify(used.length ? used : ['never'])
        ? []
        : [`${file}: declares ${said?.join(', ') ?? 'nothing'}; reads ${used.join(', ')}`];
    });
    expect(wrong).toEqual([]);
  });
});

describe('jobs declare the parts of JobDeps they use', () => {
  const declaredJobs: Array<[string, readonly string[]]> = [
    ['webhooks/job.ts', webhookUses],
    ['payouts/job.ts', payoutUses],
    ['payments/finish-expired-job.ts', finishUses],
    ['chain/watch-job.ts', watchUses],
    ['chain/sweep-job.ts', sweepUses],
    ['chain/relay-job.ts', relayUses],
    ['chain/reconcile-job.ts', reconcileUses],
    ['chain/treasury-reconcile-job.ts', treasuryReconcileUses],
    ['balances/treasury-job.ts', treasuryUses],
    ['jobs/idempotency.ts', idempotencyUses],
    ['refunds/job.ts', refundUses],
    ['refunds/wallet-job.ts', walletRefundUses],
    ['email/job.ts', emailUses],
    ['subscriptions/charge-job.ts', chargeUses],
  ];

  it('each job declares exactly the parts it reads, and every registered job is one of them', () => {
    expect(JOBS.length).toBe(declaredJobs.length);
    for (const [file, parts] of declaredJobs) {
      // From the declaration on: the job and what it hands its deps to (a helper above it has deps of its own).
      const text = read(`server/${file}`);
      const from = text.indexOf('Uses = [');
      expect(from, file).toBeGreaterThan(0);
      expect(sorted(parts), file).toEqual(partsRead(text.slice(from), 'deps'));
    }
  });

  it('a job is handed its declared parts alone', () => {
    let given: string[] = [];
    const all = { log: {}, now: Date.now, db: {}, payments: {} } as unknown as JobDeps;
    uses(['log', 'now'], (deps) => {
      given = Object.keys(deps);
      return [];
    })(all);
    expect(given.sort()).toEqual(['log', 'now']);
  });
});
