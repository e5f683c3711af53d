import type { ScreenErrorCode, WalletState } from '../checkout/table.ts';

/** Every word the customer reads, in English: the model each other language follows. */
const en = {
  close: 'Close checkout',
  testMode: 'Test mode',
  price: 'Price',
  total: 'Total',
  checkout: 'Checkout',
  details: 'Your details',
  name: 'Full name',
  email: 'E-mail',
  nameWrong: 'Enter your name.',
  emailWrong: 'Enter an e-mail address like ada@example.com.',
  next: 'Continue',
  chooseCoin: 'Choose a coin to pay with',
  inclFee: 'Amounts include the operator fee.',
  loadingCoins: 'Loading coins…',
  quoting: 'Preparing your payment…',
  sendExactly: 'Send exactly',
  sendRest: 'Still to send',
  toAddress: 'To this address',
  onNetwork: 'Network',
  contract: 'Token contract',
  warn: 'Send only {0} on {1}. Anything else is lost.',
  fee: 'Operator fee',
  due: 'Due',
  timeLeft: 'Time left',
  hurrySoon: 'Hurry: less than 2 minutes left',
  copy: 'Copy',
  copied: 'Copied',
  copyAmount: 'Copy amount',
  copyAddress: 'Copy address',
  copyReference: 'Copy reference',
  qr: 'Payment QR code for your wallet',
  wallet: 'Open in wallet',
  payWith: 'Pay with {0}',
  signWith: 'Pay with one signature in {0}, no network fee',
  /** How paying from a browser wallet goes, by the payment's wallet state. */
  walletNote: {
    asking: 'Confirm the payment in your wallet…',
    signing: 'Sign in your wallet. The payment service then sends it, and pays the network fee…',
    sent: 'Sent from your wallet. Waiting for the network to confirm it…',
    declined: 'You declined in your wallet. Try again, or pay with the QR code.',
    chain: 'Your wallet could not switch to {0}. Switch it yourself, or pay with the QR code.',
    failed: 'Your wallet could not send this payment. Pay with the QR code instead.',
    refused: 'Paying with one signature is not possible for this payment. Pay with a transfer instead.',
  } satisfies Record<WalletState, string>,
  reconnecting: 'Reconnecting… The address and amount stay valid; keep this open.',
  changeCoin: 'Pay with another coin',
  received: 'Received so far',
  stillDue: 'Send the rest to the same address.',
  finishPartial: 'Finish with what I sent',
  finishing: 'Finishing…',
  waiting: 'Waiting for your payment…',
  confirming: '{0} seen on the network: confirming ({1} of {2})…',
  detected: 'Payment detected: {0} received.',
  hurry: 'Less than a minute left.',
  success: 'Payment received',
  settled: 'Part of the amount paid, and accepted by the merchant',
  paid: 'Paid',
  reference: 'Reference',
  hash: 'Transaction',
  explorer: 'View on the explorer',
  over: 'You sent {0} more than due. The merchant has it on record.',
  done: 'Done',
  expired: 'This quote has expired',
  expiredEmpty: 'Nothing arrived in time. Get a new quote to pay.',
  expiredPartial: '{0} of {1} arrived before the time ran out. The merchant can see it: keep your reference and contact them to finish.',
  contact: 'Contact',
  requote: 'Get a new quote',
  retry: 'Try again',
  leave: 'Leave this payment?',
  leaveNote: 'Anything you already sent still reaches the merchant.',
  resume: 'Reopening this checkout resumes it.',
  stay: 'Keep paying',
  leaveYes: 'Leave',
  /** For the error screen. Bad options never open the modal, and expiry has its own screen. */
  errors: {
    api_error: 'The payment service refused this payment. Please tell the merchant.',
    network_error: 'We could not reach the payment service. Check your connection and try again.',
    bad_response: 'The payment service sent an answer we could not read. Try again.',
    payment_failed: 'The payment was rejected. Please contact the merchant.',
  } satisfies Record<ScreenErrorCode, string>,
};

export type Text = typeof en;

/** The sandbox's own controls: for the merchant's developers, in English only. */
export const sandbox = { simulate: 'Simulate a deposit', exact: 'Full', partial: 'Partial', over: 'Over' };

/** The languages the modal speaks: English is built in, the others come from the service as JSON. */
export const LANGUAGES = ['en', 'fr', 'ar'];

/**
 * The language the modal speaks and the locale it writes numbers in. Only one checkout is
 * open at a time (ServiceCheckout returns the open one), so these are set as it opens.
 */
export let text = en;
export let locale = 'en';

/** A template's {0}, {1}… filled in order. */
export const fill = (template: string, ...values: Array<string | number>) => template.replace(/\{(\d)\}/g, (_, i) => values[i] as string);

/**
 * The first of `wanted` (the merchant's option, then the page's `<html lang>`) whose
 * language we speak, kept whole for number formats ("fr-CA"); English when none is.
 */
export function speak(...wanted: Array<string | undefined>): { lang: string; rtl: boolean } {
  const tag = wanted.find((t) => t && LANGUAGES.includes(t.split('-')[0]!.toLowerCase())) ?? 'en';
  const lang = tag.split('-')[0]!.toLowerCase();
  text = en;
  try {
    locale = Intl.getCanonicalLocales(tag)[0]!;
  } catch {
    locale = lang; // well formed for the options, yet refused by Intl: its language still is not
  }
  return { lang, rtl: lang === 'ar' };
}

/** English's shape, with each word `words` has as text: a word missing or wrong stays English. */
// biome-ignore lint/suspicious/noExplicitAny: a language's words, read key by key at any depth and checked as text before use
const merge = <T extends object>(base: T, words: any): T =>
  Object.fromEntries(
    Object.entries(base).map(([k, v]) => [k, typeof v === 'object' ? merge(v, words?.[k]) : typeof words?.[k] === 'string' ? words[k] : v]),
  ) as T;

/**
 * Fetches the words of a language other than English from the service, as JSON (a page with
 * a strict CSP still allows it: the checkout talks to that origin anyway). The bundle then
 * carries English only. When they cannot be had, the modal speaks English, and says so.
 */
export async function learn(base: string, look: { lang: string; rtl: boolean }): Promise<void> {
  if (look.lang === 'en') return;
  try {
    const reply = await fetch(`${base.replace(/\/+$/, '')}/checkout/locales/${look.lang}.json`, { signal: AbortSignal.timeout(4000) });
    if (!reply.ok) throw reply.status;
    text = merge(en, await reply.json());
  } catch (error) {
    console.warn(`ServiceCheckout: no ${look.lang} words; English it is`, error);
    look.lang = 'en';
    look.rtl = false;
  }
}
