// Paying with one signature: the checkout sends the customer's signed EIP-3009
// TransferWithAuthorization, and the service brings it on chain from the gas wallet, after
// checking everything that would make it fail (server/chain/relay.ts) so that no gas is spent on
// a refusal. Crediting stays the watcher's: the relayed transfer is a transfer to the payment's
// deposit address like any other.
import * as z from 'zod/mini';
import type { Address, Hex } from 'viem';
import { answer } from '../../contract/api.ts';
import { is, REFERENCE_PATTERN } from '../../contract/fields.ts';
import { Relayed, RelayBody } from '../../contract/relay.ts';
import { checkAuthorization, type TransferAuthorization } from '../chain/relay-authorization.ts';
import { assertRelayAffordable, RELAY_DAY_MS } from '../chain/relay-caps.ts';
import { relayGasMemo } from '../chain/relay-job.ts';
import { ERROR_CODES } from '../../contract/error-codes.ts';
import { feeOf } from '../chain/treasury.ts';
import { ChainNotOffered, Conflict, DomainError, NotConfigured, PaymentState, Unavailable, invalidField } from '../domain/errors.ts';
import { clientOf } from '../http/client.ts';
import { ok } from '../http/respond.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { rateLimited, type RateLimit } from '../api/checks.ts';
import { route } from '../api/route.ts';
import { assertTakesDeposits } from './rules.ts';

type Uses = 'catalog' | 'config' | 'journal' | 'log' | 'metrics' | 'now' | 'payments' | 'relayer' | 'relaysPerClient';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

/** Relays a client address may ask for a minute (each costs the chain reads of the checks). */
export const RELAYS_PER_CLIENT_PER_MINUTE = 20;

const ByReference = z.object({ reference: is<string>((v) => typeof v === 'string' && REFERENCE_PATTERN.test(v), '1 to 64 letters, digits or . _ : -') });

type RelayContext = Parameters<Handler<{ params: typeof ByReference; body: typeof RelayBody }>>[0];

/** The relay, counted in /metrics: what became of each request, the field each refusal named, the gas each relay cost. */
export const relay: Handler<{ params: typeof ByReference; body: typeof RelayBody }> = async (ctx) => {
  const metrics = ctx.service.metrics;
  try {
    const done = await relayOnce(ctx);
    metrics.relay(done.outcome, done.gasWei === undefined ? {} : { chainId: done.chainId, gasWei: done.gasWei });
    return done.reply;
  } catch (error) {
    const refused = error instanceof DomainError && ERROR_CODES[error.code] < 500;
    metrics.relay(refused ? 'refused' : 'failed', refused ? { field: error.fields?.[0]?.field ?? error.code } : {});
    throw error;
  }
};

async function relayOnce(ctx: RelayContext) {
  const { account, service, body } = ctx;
  const reference = ctx.params.reference;
  const payment = await service.payments.get(account, reference);
  const network = service.catalog.network(account.mode, payment.chainId);
  if (!network)
    throw new ChainNotOffered(`Transaction ${reference} is on chain ${payment.chainId}, which this service does not watch: nothing can be relayed there`);
  const relayer = service.relayer(account.mode, payment.chainId);
  if (!relayer) throw new NotConfigured(`No gas wallet on ${network.name}: pay with a transfer`);
  const signed = body.authorization;
  const a: TransferAuthorization = {
    from: signed.from as Address,
    to: signed.to as Address,
    value: BigInt(signed.value),
    validAfter: BigInt(signed.validAfter),
    validBefore: BigInt(signed.validBefore),
    nonce: signed.nonce as Hex,
    signature: body.signature as Hex,
  };
  const token = payment.token as Address;
  // Asked first: a token without EIP-3009 (USDT) has no authorizationState to read.
  if (!network.tokens.find((t) => t.address.toLowerCase() === token.toLowerCase())?.eip3009) {
    throw invalidField('authorization', `${payment.coin} on ${network.name} takes no signed transfer (EIP-3009): pay with a transfer`);
  }
  const answered = (txHash: Hex, relayedByUs: boolean, status: 200 | 201, gasWei?: bigint) => ({
    reply: ok(status, { chainId: payment.chainId, txHash, relayedByUs }, status === 201 ? 'Signed transfer relayed' : 'Signed transfer already on the chain'),
    outcome: status === 201 ? ('relayed' as const) : ('already_on_chain' as const),
    chainId: payment.chainId,
    gasWei,
  });
  // Who pays the gas, written down: each transaction the gas wallet sent for this payment is
  // journaled as the merchant's sponsored gas on this chain, once by its hash (a retry, or the
  // same relay seen again, writes nothing more).
  const journalGas = (txHash: Hex, fee: bigint, reverted: boolean) =>
    service.journal.sponsoredGas(account, payment.chainId, txHash, fee, relayGasMemo(reference, txHash, reverted), service.now());
  // The nonce is the relay's key: one used already is this payment's relay (whoever sent it),
  // answered again, or another's: a 409.
  const already = async () => {
    if (body.chain_id !== payment.chainId) return undefined;
    if (!(await relayer.used(token, a.from, a.nonce))) return undefined;
    const by = await relayer.usedBy(token, a);
    if (by?.paid && a.to.toLowerCase() === payment.address.toLowerCase()) {
      // Ours, seen again (a retry, or a relay mined while the service could not write it down): journaled now if it was not.
      const ours = by.sender.toLowerCase() === relayer.gas.address.toLowerCase();
      const journaled = ours && (await journalGas(by.txHash, by.fee, false));
      return answered(by.txHash, ours, 200, journaled ? by.fee : undefined);
    }
    throw new Conflict('authorization.nonce: used or canceled on the chain already, not for this payment', [
      { field: 'authorization.nonce', message: 'used or canceled on the chain already, not for this payment' },
    ]);
  };
  const before = await already();
  if (before) return before;
  assertTakesDeposits(payment, service.now());
  // Relayed only while nothing has arrived: what is due in full, by one signature.
  if (payment.paid > 0n)
    throw new PaymentState(`reference: transaction ${reference} has received a transfer already; pay the rest with a transfer`, [
      { field: 'reference', message: 'part paid already: only a payment awaiting payment is relayed' },
    ]);
  const due = payment.due - payment.paid;
  const chainNow = (await relayer.rpc.getBlock({ blockTag: 'latest' })).timestamp;
  await checkAuthorization(
    relayer.rpc,
    network,
    { chainId: payment.chainId, token, address: payment.address as Address, due },
    body.chain_id,
    a,
    chainNow,
    relayer.gas.address,
  );
  // The caps, asked under the gas wallet's lease with what it would be sent with: nothing is sent past them. What they
  // hold: the gas journaled in the last 24 hours, and what relays not yet seen mined may still cost.
  const since = service.now() - RELAY_DAY_MS;
  const sent = await relayer
    .send(
      token,
      a,
      { merchantId: account.merchant.id, mode: account.mode, reference },
      {
        afford: async (cost) => {
          const merchant = { merchantId: account.merchant.id, mode: account.mode };
          const spent = {
            merchant: (await service.journal.sponsoredGasSince(account, payment.chainId, since)) + (await relayer.reserved(merchant)),
            instance: (await service.journal.sponsoredGasSince(undefined, payment.chainId, since)) + (await relayer.reserved()),
          };
          return assertRelayAffordable(network, cost, spent);
        },
        mined: async (receipt) => void (await journalGas(receipt.transactionHash, feeOf(receipt), receipt.status !== 'success')),
      },
    )
    .catch((error: unknown) => {
      if (error instanceof DomainError) throw error;
      // Not mined as sent: its nonce taken by another transaction of the gas wallet's, not mined in
      // time, the node unreachable. The same signature again answers whatever the chain did with it;
      // mined later, its gas is journaled by the relay job (chain/relay-job.ts) from its record.
      service.log.warn({ err: error, reference, chainId: payment.chainId }, 'a relay ended before it was seen mined');
      throw new Unavailable(`The relay on ${network.name} was not seen mined; send the same signature again shortly`);
    });
  if ('busy' in sent) throw new Unavailable(`The gas wallet on ${network.name} is busy; send the same signature again shortly`);
  if ('receipt' in sent && sent.receipt.status === 'success') {
    service.log.info(
      { reference, chainId: payment.chainId, tx: sent.receipt.transactionHash, gasUsed: String(sent.receipt.gasUsed) },
      'a signed transfer relayed from the gas wallet',
    );
    return answered(sent.receipt.transactionHash, true, 201, feeOf(sent.receipt));
  }
  // Used meanwhile (someone else sent the same signature first), or ours reverted: what the chain says now.
  const after = await already();
  if (after) return 'receipt' in sent ? { ...after, gasWei: (after.gasWei ?? 0n) + feeOf(sent.receipt) } : after;
  if ('receipt' in sent)
    service.log.warn(
      { reference, chainId: payment.chainId, tx: sent.receipt.transactionHash, gasWei: String(feeOf(sent.receipt)) },
      'a relayed signed transfer reverted on chain; nothing was moved',
    );
  throw invalidField('authorization', 'the token refused it on chain; nothing was moved');
}

/** Each client address may ask for a few relays a minute; a merchant's server with the secret key is not limited. */
const perClientRelays: RateLimit = {
  limiter: (service) => service.relaysPerClient,
  key: ({ req, account, service }) => (account.via === 'public' ? clientOf(req, service.config.trustProxies) : undefined),
  message: (wait) => `Too many signed transfers sent from this address; try again in ${wait} s`,
};

export const routes = [
  route({
    method: 'POST',
    path: '/api/v1/transaction/relay/:reference',
    auth: 'either',
    permission: 'payments.write',
    handler: relay,
    tag: 'Payments',
    summary: 'pay with one signature: relay a signed EIP-3009 transfer',
    description:
      "For a coin whose network entry says `eip3009` (the dev chain's USDC): the customer's wallet signs `TransferWithAuthorization { from, to: the payment's deposit address, value: what is due in base units, validAfter, validBefore, nonce }` in the token's own EIP-712 domain, and the service brings it on chain from its gas wallet; the customer needs none of the chain's native coin. Checked before any gas is spent, each refusal a 400 naming the field: `chain_id` (not the payment's chain), `authorization.to` (not the deposit address), `authorization.value` (not exactly what is due), `authorization.validBefore` (expired, or less than 30 s left), `authorization.validAfter` (not valid yet), `signature` (not signed by `from`; a contract wallet through ERC-1271 or ERC-6492 is asked), `authorization.from` (holds too little), `authorization` (a coin that takes no signed transfer, or the token refuses it). Idempotent on the nonce: the same authorization again answers the same transaction (200, also when someone else brought it on chain first: `relayedByUs` false); a nonce used or canceled for anything else is a 409 naming `authorization.nonce`. 201 with the transaction once mined; the payment is then credited by the watcher like any transfer (verify says `confirming`, then `confirmed`). 409 `not_configured` where the network has no gas wallet: pay with a transfer. The gas is the operator's, journaled per merchant and chain (`sponsored_gas`), and capped: 409 `relay_declined`, nothing sent and the signature unused, naming `gas.payment_cap` (it would cost more than the network's `relayMaxGasWei`, as estimated before sending: on Ethereum itself, by default), `gas.daily_cap` (the merchant's relays on this chain cost its `relayDailyGasWei` in the last 24 hours) `gas.instance_cap` (every merchant's relays on this chain cost the network's `relayInstanceDailyGasWei` in the last 24 hours), `gas.wallet` (the gas wallet holds too little) or `authorization.from` (this payer had the network's `relaysPerPayerPerDay` payments relayed in the last 24 hours): pay with a transfer; relays not yet seen mined count at the most they may cost. A payment is relayed once, and only while nothing has arrived: one relayed already (under way or mined), or part paid, is a 409 `payment_state` naming `reference`, before any gas (the same payer's relay still under way: 503, send the same signature again shortly). Each client address may ask 20 a minute with the public key (429 with Retry-After).",
    params: ByReference,
    body: RelayBody,
    responses: { 200: answer(Relayed), 201: answer(Relayed) },
    errors: ['not_configured', 'chain_not_offered', 'payment_state', 'relay_declined', 409, 429, 503],
    checks: [rateLimited(perClientRelays)],
  }),
];
