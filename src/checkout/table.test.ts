// Every (state, event) pair of the checkout's table, without timers or requests: the table is
// data, and `next` is a pure function of it. The grid below is the table as a person reads it.
import { describe, expect, it } from 'vitest';
import { TEST_COINS } from '../testing/fake-api.ts';
import type { Verification } from '../../contract/schemas.ts';
import { next, table, type Env, type Event, type EventType, type State, type StateName } from './table.ts';

const env: Env = { coin: (p) => TEST_COINS.find((c) => c.symbol === p.coin && (p.chainId ?? c.chainId) === c.chainId) };
const payment = (over: Partial<Verification> = {}): Verification => ({
  reference: 'order-1',
  address: '0x' + 'ab'.repeat(20),
  coin: 'USDT',
  network: 'testnet',
  status: 'pending',
  actualAmount: 25.245,
  amountPaid: 0,
  amountRemaining: 25.245,
  fiatAmount: 25,
  currency: 'USD',
  feeInCrypto: 0.25,
  acceptPartialPayment: false,
  hash: null,
  expiresAt: '2026-11-22T12:10:00.000Z',
  ...over,
});
const network = { code: 'network_error', message: 'down' } as const;
const customer = { name: 'Ada Lovelace', email: 'ada@example.com' };

/** One sample of each state. */
const states: Record<StateName, State> = {
  details: { name: 'details', customer: {}, wrong: [] },
  coins: { name: 'coins', customer, coins: TEST_COINS },
  quoting: { name: 'quoting', customer, coin: TEST_COINS[0]! },
  watching: { name: 'watching', customer, payment: payment(), leaving: false, lost: false },
  settling: { name: 'settling', customer, payment: payment({ status: 'incomplete', amountPaid: 10, acceptPartialPayment: true }) },
  success: { name: 'success', payment: payment({ status: 'confirmed', amountPaid: 25.245, amountRemaining: 0 }) },
  expired: { name: 'expired', customer, payment: payment({ status: 'expired' }) },
  error: { name: 'error', error: network, again: { name: 'coins', customer } },
  closed: { name: 'closed' },
};

/** One sample of each event. */
const events: Record<EventType, Event> = {
  details: { type: 'details', name: 'Ada', email: 'ada@example.com' },
  choose: { type: 'choose', coin: TEST_COINS[1]! },
  change: { type: 'change' },
  requote: { type: 'requote' },
  finish: { type: 'finish' },
  retry: { type: 'retry' },
  escape: { type: 'escape' },
  askClose: { type: 'askClose' },
  stay: { type: 'stay' },
  close: { type: 'close' },
  coins: { type: 'coins', coins: TEST_COINS },
  refused: { type: 'refused', error: { code: 'api_error', message: '401' } },
  resumed: { type: 'resumed', payment: payment({ status: 'incomplete', amountPaid: 5 }) },
  status: { type: 'status', payment: payment({ status: 'confirmed', amountPaid: 25.245, amountRemaining: 0 }) },
  lost: { type: 'lost' },
  failed: { type: 'failed', error: network },
  wallet: { type: 'wallet', index: 0 },
  walletSent: { type: 'walletSent' },
  walletFailed: { type: 'walletFailed', reason: 'declined' },
};

// Where each event leads from each state; "·" means the event is not accepted there (nothing changes).
const grid = `
             details      choose       change       requote      finish       retry        escape       askClose     stay         close        coins        refused      resumed      status       lost         failed       wallet       walletSent   walletFailed
details      coins        ·            ·            ·            ·            ·            closed       closed       ·            closed       ·            error        watching     ·            ·            ·            ·            ·            ·
coins        ·            quoting      ·            ·            ·            ·            closed       closed       ·            closed       coins        error        watching     ·            ·            error        ·            ·            ·
quoting      ·            ·            ·            ·            ·            ·            closed       closed       ·            closed       ·            ·            ·            success      ·            error        ·            ·            ·
watching     ·            ·            coins        ·            ·            ·            watching     watching     watching     closed       ·            ·            ·            success      watching     ·            watching     watching     watching
settling     ·            ·            ·            ·            ·            ·            closed       closed       ·            closed       ·            ·            ·            success      ·            error        ·            ·            ·
success      ·            ·            ·            ·            ·            ·            closed       closed       ·            closed       ·            ·            ·            ·            ·            ·            ·            ·            ·
expired      ·            ·            ·            quoting      ·            ·            closed       closed       ·            closed       ·            ·            ·            ·            ·            ·            ·            ·            ·
error        ·            ·            ·            ·            ·            coins        closed       closed       ·            closed       ·            ·            ·            ·            ·            ·            ·            ·            ·
closed       ·            ·            ·            ·            ·            ·            ·            ·            ·            ·            ·            ·            ·            ·            ·            ·            ·            ·            ·
`;
const [head, ...rows] = grid
  .trim()
  .split('\n')
  .map((line) => line.trim().split(/\s+/));
const cells = rows.flatMap(([from, ...to]) => to.map((cell, i) => [from as StateName, head![i] as EventType, cell] as const));

describe('the checkout table', () => {
  it('covers every state and every event', () => {
    expect(rows.map((r) => r[0]).sort()).toEqual(Object.keys(table).sort());
    expect([...head!].sort()).toEqual(Object.keys(events).sort());
  });

  it.each(cells)('%s + %s → %s', (from, type, to) => {
    const state = states[from];
    const after = next(state, events[type], env);
    if (to === '·') expect(after).toBe(state);
    else {
      expect(after.name).toBe(to);
      expect(after).not.toBe(state);
    }
  });

  it('lists in the table exactly the pairs the grid says are accepted, so neither can drift', () => {
    const accepted = cells.filter(([, , to]) => to !== '·').map(([from, type]) => `${from}+${type}`);
    // Handlers that exist but refuse this sample (a guard) are listed here, with why.
    const guarded = ['watching+finish' /* only an incomplete, accepted partial payment */];
    const listed = Object.entries(table).flatMap(([from, handlers]) => Object.keys(handlers).map((type) => `${from}+${type}`));
    expect(listed.filter((pair) => !guarded.includes(pair)).sort()).toEqual(accepted.filter((p) => !guarded.includes(p)).sort());
  });
});

describe('the guards within a state', () => {
  const incomplete = payment({ status: 'incomplete', amountPaid: 10, amountRemaining: 15.245 });
  const watching = (p: Verification, leaving = false): State => ({ name: 'watching', customer, payment: p, leaving, lost: false });

  it('finishes a partial payment only when the merchant accepts partial payments', () => {
    expect(next(watching(incomplete), events.finish, env)).toMatchObject({ name: 'watching' });
    expect(next(watching({ ...incomplete, acceptPartialPayment: true }), events.finish, env)).toMatchObject({ name: 'settling' });
  });

  it('offers another coin only before any money arrived', () => {
    const s = watching(incomplete);
    expect(next(s, events.change, env)).toBe(s);
  });

  it('asks before closing an open payment: askClose asks, a second one closes; Escape asks, a second Escape stays', () => {
    const asked = next(watching(payment()), events.askClose, env);
    expect(asked).toMatchObject({ name: 'watching', leaving: true });
    expect(next(asked, events.askClose, env).name).toBe('closed');
    expect(next(asked, events.escape, env)).toMatchObject({ name: 'watching', leaving: false });
    expect(next(asked, events.stay, env)).toMatchObject({ name: 'watching', leaving: false });
  });

  it('pays from a wallet once at a time: a second click while asking changes nothing; a refusal may be retried; the state survives a status update', () => {
    const asking = next(states.watching, events.wallet, env);
    expect(asking).toMatchObject({ name: 'watching', wallet: 'asking' });
    expect(next(asking, events.wallet, env)).toBe(asking);
    const declined = next(asking, events.walletFailed, env);
    expect(declined).toMatchObject({ wallet: 'declined' });
    expect(next(declined, events.wallet, env)).toMatchObject({ wallet: 'asking' });
    const sent = next(asking, events.walletSent, env);
    expect(next(sent, { type: 'status', payment: payment({ status: 'incomplete', amountPaid: 1 }) }, env)).toMatchObject({ wallet: 'sent' });
  });

  it('keeps the question open across a status update, and drops "reconnecting" when an answer comes', () => {
    const s: State = { name: 'watching', customer, payment: payment(), leaving: true, lost: true };
    expect(next(s, { type: 'status', payment: incomplete }, env)).toMatchObject({ name: 'watching', leaving: true, lost: false });
  });

  it.each([
    ['pending', 0, false, 'watching'],
    ['incomplete', 5, false, 'watching'],
    ['confirmed', 25.245, false, 'success'],
    ['settled', 5, true, 'success'],
    ['failed', 0, false, 'error'],
    ['expired', 0, false, 'expired'],
    ['expired', 5, false, 'expired'],
    ['expired', 5, true, 'settling'],
  ] as const)('follows a %s payment with %s paid (partial accepted: %s) to %s', (status, amountPaid, acceptPartialPayment, to) => {
    expect(next(states.quoting, { type: 'status', payment: payment({ status, amountPaid, acceptPartialPayment }) }, env).name).toBe(to);
  });

  it("refuses to draw a coin the API did not list: an error, never another coin's contract", () => {
    const after = next(states.quoting, { type: 'status', payment: payment({ coin: 'BUSD' }) }, { ...env, coin: () => undefined });
    expect(after).toMatchObject({ name: 'error', error: { code: 'bad_response' } });
  });

  it('re-quotes an expired payment only when nothing arrived', () => {
    const s: State = { name: 'expired', customer, payment: payment({ status: 'expired', amountPaid: 3 }) };
    expect(next(s, events.requote, env)).toBe(s);
  });

  it('offers "Try again" only for failures that may pass', () => {
    const refused: State = { name: 'error', error: { code: 'api_error', message: 'no' }, again: { name: 'coins', customer } };
    expect(next(refused, events.retry, env)).toBe(refused);
  });

  it('records the details typed (trimmed) beside those the options gave, and carries them to each quote', () => {
    const askEmail: State = { name: 'details', customer: { name: 'Ada Lovelace' }, wrong: [] };
    const coins = next(askEmail, { type: 'details', name: 'not asked', email: ' ada@example.com ' }, env);
    expect(coins).toEqual({ name: 'coins', customer });
    const quoting = next(next(coins, events.coins, env), events.choose, env);
    expect(quoting).toMatchObject({ name: 'quoting', customer });
    const open = next(quoting, { type: 'status', payment: payment() }, env);
    expect(next(open, events.change, env)).toEqual({ name: 'coins', customer });
    const expired = next(open, { type: 'status', payment: payment({ status: 'expired' }) }, env);
    expect(next(expired, events.requote, env)).toMatchObject({ name: 'quoting', customer });
  });

  it('keeps asking for details that are wrong, naming each', () => {
    const after = next(states.details, { type: 'details', name: ' ', email: 'nope' }, env);
    expect(after).toMatchObject({ name: 'details', wrong: ['name', 'email'] });
  });

  it('chooses only a coin on the list', () => {
    expect(next(states.coins, { type: 'choose', coin: { ...TEST_COINS[1]!, chainId: 1 } }, env)).toBe(states.coins);
  });
});
