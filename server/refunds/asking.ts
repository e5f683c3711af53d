// What a refund and a send-back ask of the service around their use case (use-cases.ts's
// requestRefund, exceptions.ts's sendBack), the same for both: the customer's wallet as written,
// a live key's new wallet waiting the operator's delay, who asks (a support member's refunds are
// limited and never go to a wallet they name), and, for one that waits on the customer's wallet,
// the claim link e-mailed to the payment's customer and answered to whoever may hold it.
import { getAddress, isAddress } from 'viem';
import type { CoinSymbol } from '../../contract/fields.ts';
import type { Account } from '../domain/account.ts';
import { DestinationPending, invalidField } from '../domain/errors.ts';
import { ok, type Reply } from '../http/respond.ts';
import type { ServiceParts } from '../api/context.ts';
import { sendTermsOf, tokenOf } from '../chain/networks.ts';
import { checkSupportClaim, type StoredRefund } from './rules.ts';
import type { RefundContext } from './use-cases.ts';
import { refundView } from './views.ts';

/**
 * What a refund asks of the service: its own addresses (never a destination) and the
 * treasury's terms for sending a token (the minimum and network fee of every send).
 */
export const treasuryContext = (service: Pick<ServiceParts, 'treasury' | 'ownAddresses'>, mode: 'test' | 'live') => ({
  ownAddress: (address: string) => service.ownAddresses.named(address),
  sendTerms: (chainId: number, token: string) => sendTermsOf(tokenOf(service.treasury(mode, chainId)?.treasury.network, token)),
});

/** The customer's wallet as the request wrote it: EIP-55 checksummed (mixed case) or all lower case; 400 naming `address` otherwise. */
export function askedAddress(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (!isAddress(text, { strict: true }) && text.slice(2) !== text.slice(2).toLowerCase())
    throw invalidField('address', `expected a valid EIP-55 checksum (mixed case), or all lower case; did you mean ${getAddress(text.toLowerCase())}?`);
  return getAddress(text.toLowerCase());
}

/**
 * A live key's wallet never sent to from the balance waits the operator's delay, as a
 * withdrawal's does: a stolen key must not send the balance, payment by payment, to a wallet of
 * its own at once. Registered now; 409 naming `address` until it may receive.
 */
export async function assertWalletReady(
  service: Pick<ServiceParts, 'destinations' | 'now'>,
  account: Account,
  chainId: number,
  address: string,
): Promise<void> {
  const wallet = await service.destinations.withdrawalAddress(account, chainId, address, service.now());
  if (wallet.ready) return;
  const at = new Date(wallet.change.effectiveMs).toISOString();
  throw new DestinationPending(
    `address: ${address} has never received money of your live balance on chain ${chainId}; it is registered now and can receive from ${at} (new wallets wait ${Math.round(service.destinations.delayMs / 60_000)} minutes, so the owner can cancel one they did not add: change ${wallet.change.id}). Ask again from then; nothing was reserved or sent`,
    [{ field: 'address', message: `expected a wallet registered at least the delay ago; this one can receive from ${at}` }],
  );
}

/**
 * Who asks (the member's role, if a member asks) and what the use case knows outside its
 * transaction. A support member may only send a refund through the customer's own claim link,
 * e-mailed to the payment's customer: refused (403) otherwise.
 */
export async function asker(
  service: Pick<ServiceParts, 'mail' | 'ownAddresses' | 'rates' | 'refunds' | 'treasury'>,
  account: Account,
  reference: string,
  address: string | undefined,
): Promise<{ role: string | undefined; context: RefundContext }> {
  const role = account.actor?.kind === 'member' ? account.actor.role : undefined;
  checkSupportClaim(role, {
    hasAddress: address !== undefined,
    reachesCustomer: role === 'support' && !address && (await service.mail.reachesCustomer(account.merchant.id, account.mode, reference)),
  });
  const context = {
    ...treasuryContext(service, account.mode),
    usdPerCoin: (symbol: string) => service.rates.usdPerCoin(symbol as CoinSymbol),
    supportLimitCents: role === 'support' ? await service.refunds.supportLimitCents(account.merchant.id, account.mode) : undefined,
  };
  return { role, context };
}

/**
 * The answer (201) to a refund that waits on the customer's wallet: its claim link, whose token
 * rides in the fragment (browsers never send it to a server, nor into a log), e-mailed to the
 * payment's customer when e-mail is on and the payment has their e-mail, and answered this once,
 * except to a support member: theirs went to the customer only. `waiting` begins the message.
 */
export async function claimAnswer(
  service: Pick<ServiceParts, 'mail' | 'origin'>,
  account: Account,
  refund: StoredRefund,
  claimToken: string,
  role: string | undefined,
  waiting: string,
): Promise<Reply> {
  const claimUrl = `${service.origin()}/refund#${claimToken}`;
  const emailed = await service.mail.customerRefundLink(
    account.merchant.id,
    account.mode,
    { reference: refund.reference, amount: refundView(refund).amount_exact, coin: refund.coin },
    claimUrl,
  );
  if (role === 'support')
    return ok(
      201,
      refundView(refund),
      `${waiting}: ${emailed ? "the link was e-mailed to the payment's customer e-mail" : 'the link could not be e-mailed; cancel it and ask an owner, admin or finance member'}`,
    );
  return ok(
    201,
    { ...refundView(refund), claim_url: claimUrl },
    `${waiting}: ${emailed ? "the link was e-mailed to the payment's customer e-mail; " : ''}give them claim_url (shown this once)`,
  );
}
