// A route's cross-cutting checks, listed on the route (`checks: [...]`, as hono's middleware) and
// run in that order by api/route.ts, before its body is read or once it reads: only from the
// service's own pages, rate limits, test keys only, balance settlement only, injected faults. A
// route that moves money adds the merchant's allowance of money-moving requests.
import type { ErrorCode } from '../../contract/error-codes.ts';
import type { Account } from '../domain/account.ts';
import { BalanceSettlementRequired, CsrfRejected, NotConfigured, TooMany } from '../domain/errors.ts';
import { actorOf } from '../audit/rules.ts';
import { sameOrigin } from '../http/auth.ts';
import type { Call } from '../http/faults.ts';
import type { RateLimiter } from '../http/rate-limit.ts';
import type { AnyCtx, ServiceParts } from './context.ts';

/** A count of requests over a window (a RateLimiter of the service's): over it, 429 with Retry-After. */
export interface RateLimit {
  limiter: (service: ServiceParts) => RateLimiter;
  /** What is counted: a client's address, a key; undefined: this request is not counted. */
  key: (ctx: AnyCtx) => string | undefined;
  /** Counted only once the body reads, so junk does not spend the allowance of real callers. */
  afterBody?: boolean;
  message: (seconds: number) => string;
}

/**
 * One cross-cutting check a route lists in `checks` (as hono's `middleware: [...]`): each runs in
 * the order listed, before the body is read or once it reads (`when`), and throws to refuse. The
 * codes it may refuse with are the route's documented errors (api/error-codes.ts).
 */
export interface RouteCheck {
  when: 'before body' | 'after body';
  refuses: ErrorCode[];
  /** It may answer the request itself (an injected fault): it runs after every check of its moment that only refuses. */
  answers?: true;
  /** Throws to refuse; true: it answered the request itself (an injected fault). */
  run(ctx: AnyCtx): Promise<boolean | undefined>;
}

/** Only from the service's own pages (Origin or Referer): 403 otherwise (no login CSRF). List it first. */
export const fromOurPages: RouteCheck = {
  when: 'before body',
  refuses: ['csrf_rejected'],
  run: async (ctx) => {
    if (!sameOrigin(ctx.req, ctx.service.origin())) throw new CsrfRejected('This request came from another origin: refused (CSRF)');
    return undefined;
  },
};

/** Counted against `limit`: over it, 429 with Retry-After. */
export const rateLimited = (limit: RateLimit): RouteCheck => ({
  when: limit.afterBody ? 'after body' : 'before body',
  refuses: ['rate_limited'],
  run: async (ctx) => {
    const key = limit.key(ctx);
    const wait = key === undefined ? undefined : await limit.limiter(ctx.service).hit(key, ctx.res);
    if (wait !== undefined) throw new TooMany(limit.message(wait), wait);
    return undefined;
  },
});

/** Refused to live keys with this reason (409): what the service cannot do live. */
export const testOnly = (reason: string): RouteCheck => ({
  when: 'before body',
  refuses: ['not_configured'],
  run: async (ctx) => {
    if (ctx.account.mode === 'live') throw new NotConfigured(reason);
    return undefined;
  },
});

/**
 * Only for a merchant on balance settlement (the service holds its money): 409 on wallet, naming
 * what. The money it moves may be held by the operator too (409 `treasury_held`).
 */
export const balanceOnly = (what: 'Swaps' | 'Withdrawals' | 'Bank payouts'): RouteCheck => ({
  when: 'before body',
  refuses: ['balance_settlement_required', 'treasury_held'],
  run: async (ctx) => {
    await requireBalance(ctx.account, ctx.service, what);
    return undefined;
  },
});

/** Tests may inject faults into this call (startService({ faults: true }); test keys only). */
export const faultable = (call: Call): RouteCheck => ({
  when: 'after body',
  answers: true,
  refuses: [],
  run: async (ctx) => (ctx.service.faults && ctx.account.mode === 'test' ? ctx.service.faults.apply(call, ctx.req, ctx.res) : false),
});

/** Refuses what only a balance allows (swaps, bank payouts, withdrawals) to a merchant on `wallet` settlement. */
async function requireBalance(account: Account, service: ServiceParts, what: string): Promise<void> {
  if ((await service.journal.settlement(account.merchant.id, account.mode)) !== 'balance') {
    throw new BalanceSettlementRequired(
      `${what} need balance settlement: your ${account.mode} payments settle to your own wallet, so the service holds no money of yours to ${what === 'Bank payouts' ? 'pay out' : 'use'}. Switch with PUT /api/v1/settlement {"settlement":"balance"} (the operator then holds your money; see the README) and take payments after it`,
    );
  }
}

/**
 * Money-moving requests (withdrawals, swaps, bank payouts, refunds) in a minute, per mode and per
 * person or key: the owner, each member, the full key and each restricted key has an
 * allowance of its own, so one member's junk refunds never spend the one finance withdraws with.
 */
const moneyMoves: RateLimit = {
  limiter: (service) => service.moneyMoves,
  key: ({ account }) => {
    const actor = actorOf(account);
    return `${account.merchant.id}/${account.mode}/${actor.kind}:${actor.id}`;
  },
  afterBody: true,
  message: (wait) =>
    `Too many withdrawals, swaps, refunds and bank payouts by you in a minute; try again in ${wait} s (a retry with the same Idempotency-Key is not counted)`,
};

/**
 * The route's checks of one moment, in order: those that only refuse as listed; a route that
 * moves money adds the merchant's money-moves allowance once the body reads; then one that may
 * answer itself (an injected fault), so a faulted request is still counted.
 */
export const checksOf = (route: { checks?: RouteCheck[]; movesMoney?: true }, when: RouteCheck['when']): RouteCheck[] => {
  const listed = (route.checks ?? []).filter((c) => c.when === when);
  return [
    ...listed.filter((c) => !c.answers),
    ...(when === 'after body' && route.movesMoney ? [rateLimited(moneyMoves)] : []),
    ...listed.filter((c) => c.answers),
  ];
};

/** What the route's checks of `when` find: each in order, throwing to refuse; true: one answered the request itself. */
export async function runChecks(route: { checks?: RouteCheck[]; movesMoney?: true }, ctx: AnyCtx, when: RouteCheck['when']): Promise<boolean> {
  for (const check of checksOf(route, when)) if (await check.run(ctx)) return true;
  return false;
}
