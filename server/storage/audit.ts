// The audit log's row written inside the change it records. A request that changes a
// merchant runs in an audit scope (api/route.ts opens one for each write of a session, a
// secret key or the operator); a store's transaction that makes the change runs through
// `auditedTransaction`, which writes the scope's row as the transaction's last statement: the
// change and its row commit together or not at all (a crash between them, or a change rolled
// back, can no longer leave one without the other). A write whose store is not marked gets its
// row right after it succeeds, as before (api/route.ts). Outside a scope (jobs, the
// customer's claim), nothing is written.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditEntry } from '../audit/rules.ts';
import { appendAudit } from '../audit/store.ts';
import type { Database, Sql } from './db.ts';

// The audit log's rows are written by its owner's store (storage/tables.ts), in the caller's transaction.
export { appendAudit };

/** One row of the audit log, as audit/rules.ts defines it. */
export type AuditRecord = AuditEntry;

interface Scope {
  /** The request's rows (one per mode it changes; the operator's change both), made when written (its body read by then). */
  records: () => AuditRecord[];
  written: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs `work` (a request's handler) in an audit scope; answers whether a store wrote its rows in the change's transaction. */
export async function inAuditScope<T>(records: () => AuditRecord[], work: () => Promise<T>): Promise<{ result: T; written: boolean }> {
  const scope: Scope = { records, written: false };
  const result = await scopes.run(scope, work);
  return { result, written: scope.written };
}

/** The id a change's result names (a new key's, a payout's, a refund's), for the row's target. */
function targetOf(result: unknown): string | undefined {
  if (!result || typeof result !== 'object') return undefined;
  for (const name of ['id', 'reference'] as const) {
    const value = (result as Record<string, unknown>)[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * `db.transaction(work)`, and in a request's audit scope the request's row written as its last
 * statement (once per request: the first such transaction to commit carries it). Its target is
 * the id the result names, else the one the request's path named. A result of false, null or
 * undefined says nothing changed (no such member, no such key): no row.
 */
export async function auditedTransaction<T>(db: Database, work: (tx: Sql) => Promise<T>): Promise<T> {
  const scope = scopes.getStore();
  let mine = false;
  try {
    return await db.transaction(async (tx) => {
      const result = await work(tx);
      const changed = result !== false && result !== undefined && result !== null;
      if (scope !== undefined && !scope.written && changed) {
        const target = targetOf(result);
        await appendAudit(
          tx,
          scope.records().map((r) => ({ ...r, target: target ?? r.target })),
        );
        scope.written = mine = true;
      }
      return result;
    });
  } catch (error) {
    // Rolled back (or its COMMIT failed): its row with it; a later change of the request writes one.
    if (mine) scope!.written = false;
    throw error;
  }
}
