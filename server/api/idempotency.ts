// The Idempotency-Key of a request, as route.ts runs it (the rules are domain/idempotency.ts,
// the rows storage/idempotency.ts): claim the key, or answer what the first request with it
// answered, or wait for that answer while it executes (on this instance or another sharing the
// database); then run the handler under the key's lease and keep its answer.
import { createHash, randomUUID } from 'node:crypto';
import type { FormFile } from '../http/multipart.ts';
import type { Account } from '../domain/account.ts';
import { DomainError, invalidField } from '../domain/errors.ts';
import {
  decideKey,
  IDEMPOTENCY_HEADER,
  IDEMPOTENCY_KEEP_MS,
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_WAIT_MS,
  keepsAnswer,
  stillRunning,
  withheldAnswer,
  type KeyedRequest,
} from '../domain/idempotency.ts';
import { errorReply, internalError, type Reply } from '../http/respond.ts';
import type { ServiceParts } from './context.ts';

/** The header a replayed answer carries. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/** JSON with each object's keys sorted: the same request written another way is the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What a request is, for its key: its method and path, and a digest of its query and body (a form's files by their own digest). */
export function keyedRequest(method: string, path: string, query: Record<string, string>, body: unknown, files: Map<string, FormFile>): KeyedRequest {
  const fileDigests = Object.fromEntries([...files].map(([name, f]) => [name, createHash('sha256').update(f.data).digest('hex')]));
  const fingerprint = createHash('sha256')
    .update(canonical({ query, body: body ?? null, files: fileDigests }))
    .digest('hex');
  return { endpoint: `${method} ${path}`, fingerprint };
}

/** Whose keys these are: a merchant's mode and credential (a key, or the dashboard's session), or the operator's. */
export function scopeOf(account: Account | undefined): string {
  if (!account) return 'operator';
  if (account.via === 'public') {
    throw invalidField(
      IDEMPOTENCY_HEADER,
      "the public key's requests take none: anyone holds that key (initialize is idempotent by its reference). Send it with your secret key, from your server",
    );
  }
  // A member's session or a restricted key has its own keys: another member or key never replays its answers.
  const own = account.actor && (account.actor.kind === 'member' || (account.grants !== undefined && account.grants !== 'all'));
  return `${account.merchant.id}/${account.mode}/${own ? `${account.actor!.kind}:${account.actor!.id}` : account.session ? 'session' : 'key'}`;
}

export interface KeyedCall {
  scope: string;
  key: string;
  request: KeyedRequest;
  /** The route moves money: an unexpected error's answer is kept too, and a holder cut off is never run again. */
  movesMoney: boolean;
  /** The route's answer shows a secret once: it is not kept (a replay answers 409 saying so). */
  withholds: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The key claimed by this request: run its handler under it, or let it go (a refusal before the handler). */
export interface HeldKey {
  run(handler: () => Promise<Reply | undefined>): Promise<Reply | undefined>;
  release(): Promise<void>;
}

/**
 * Claims the call's key: answers the first answer again (`replay`), or the key held for this
 * request (`held`). Waits (polling, at most IDEMPOTENCY_WAIT_MS) while another request with
 * the key executes; throws the 409s of decideKey.
 */
export async function claimKey(service: ServiceParts, call: KeyedCall): Promise<{ replay: Reply } | { held: HeldKey }> {
  const store = service.idempotency;
  const holder = randomUUID();
  const started = performance.now();
  let pause = 20;
  for (;;) {
    const nowMs = service.now();
    const stored = await store.claim(call.scope, call.key, call.request, holder, nowMs, IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_KEEP_MS);
    if (stored === 'claimed') return { held: heldKey(service, call, holder) };
    if (stored === undefined) continue; // let go a moment ago: claim it again
    const decision = decideKey(stored, call.request, nowMs, call.movesMoney);
    if (decision.kind === 'replay') {
      if (stored.withheld) throw withheldAnswer(stored);
      const replayed: Reply = {
        status: stored.status!,
        body: stored.body === null || stored.body === undefined ? undefined : JSON.parse(stored.body),
        headers: { ...stored.headers, [REPLAYED_HEADER]: 'true' },
      };
      return { replay: replayed };
    }
    if (decision.kind === 'take-over') {
      if (await store.takeOver(call.scope, call.key, stored.holder, holder, nowMs, IDEMPOTENCY_LEASE_MS)) return { held: heldKey(service, call, holder) };
      continue;
    }
    if (decision.kind === 'execute') continue; // kept over a day: the claim makes it anew
    if (performance.now() - started > IDEMPOTENCY_WAIT_MS) throw stillRunning();
    await sleep(pause);
    pause = Math.min(pause * 2, 250);
  }
}

function heldKey(service: ServiceParts, call: KeyedCall, holder: string): HeldKey {
  const store = service.idempotency;
  const { scope, key } = call;
  const keep = async (reply: Reply, unexpected: boolean) => {
    try {
      if (!keepsAnswer(reply.status, call.movesMoney, unexpected)) return void (await store.release(scope, key, holder));
      const withheld = call.withholds && reply.status < 300;
      const body = withheld || reply.body === undefined ? null : JSON.stringify(reply.body);
      await store.finish(scope, key, holder, { status: reply.status, body, headers: (reply.headers ?? {}) as Record<string, string>, withheld }); // keyed routes set no header twice (only sign-ins send two cookies)
    } catch (error) {
      // Not kept: the key's lease runs out, and a retry of a request that moves money is refused (409), never run again.
      service.log.error({ err: error, endpoint: call.request.endpoint }, 'could not keep an idempotent answer');
    }
  };
  return {
    release: () => store.release(scope, key, holder).catch((error) => service.log.error({ err: error }, 'could not let an idempotency key go')),
    async run(handler) {
      const renewal = setInterval(() => void store.renew(scope, key, holder, service.now(), IDEMPOTENCY_LEASE_MS).catch(() => {}), IDEMPOTENCY_LEASE_MS / 3);
      let reply: Reply | undefined;
      try {
        reply = await handler();
      } catch (error) {
        clearInterval(renewal);
        const domain = error instanceof DomainError;
        await keep(domain ? errorReply(error) : internalError(), !domain);
        throw error; // the pipeline answers (and logs) it as ever
      }
      clearInterval(renewal);
      if (reply === undefined)
        await store.release(scope, key, holder); // it answered itself: nothing to keep
      else await keep(reply, false);
      return reply;
    },
  };
}
