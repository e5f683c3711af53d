import type { ScreenErrorCode } from '../checkout/machine.ts';
import { ar } from './locales/ar.ts';
import { fr } from './locales/fr.ts';

/** Every word the customer reads, in English: the model each other language follows. */
const en = {
  close: 'Close checkout',
  testMode: 'Test mode',
  pay: 'Pay',
  checkout: 'Checkout',
  details: 'Your details',
  name: 'Full name',
  email: 'E-mail',
  nameWrong: 'Enter your name.',
  emailWrong: 'Enter an e-mail address like ada@example.com.',
  next: 'Continue',
  chooseCoin: 'Choose a coin to pay with',
  loadingCoins: 'Loading coins…',
  quoting: 'Preparing your payment…',
  sendExactly: 'Send exactly',
  sendRest: 'Still to send',
  toAddress: 'To this address',
  onNetwork: 'Network',
  fee: 'Fee',
  rate: 'Rate',
  timeLeft: 'Time left',
  copy: 'Copy',
  copied: 'Copied',
  copyAmount: 'Copy amount',
  copyAddress: 'Copy address',
  qr: 'Payment QR code for your wallet',
  wallet: 'Open in wallet',
  reconnecting: 'Reconnecting… The address and amount stay valid; keep this open.',
  changeCoin: 'Pay with another coin',
  received: 'Received so far',
  stillDue: 'Send the rest to the same address.',
  finishPartial: 'Finish with what I sent',
  waiting: 'Waiting for your payment…',
  detected: (amount: string) => `Payment detected: ${amount} received.`,
  hurry: 'Less than a minute left.',
  success: 'Payment received',
  paid: 'Paid',
  hash: 'Transaction',
  over: (extra: string) => `You sent ${extra} more than due. The merchant has it on record.`,
  done: 'Done',
  expired: 'This quote has expired',
  expiredEmpty: 'Nothing arrived in time. Get a new quote to pay.',
  expiredPartial: (paid: string, reference: string) =>
    `${paid} arrived before the time ran out. Keep your reference ${reference}: the merchant can see your payment.`,
  requote: 'Get a new quote',
  retry: 'Try again',
  leave: 'Leave this payment?',
  leaveNote: 'Anything you already sent still reaches the merchant.',
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

const languages: Record<string, Text> = { en, fr, ar };

/**
 * The language the modal speaks and the locale it writes numbers in. Only one checkout is
 * open at a time (ServiceCheckout returns the open one), so these are set as it mounts.
 */
export let text = en;
export let locale = 'en';

/**
 * The first of `wanted` (the merchant's option, then the page's `<html lang>`) whose
 * language we speak, kept whole for number formats ("fr-CA"); English when none is.
 */
export function speak(...wanted: Array<string | undefined>): { lang: string; rtl: boolean } {
  const tag = wanted.find((t) => t && languages[t.split('-')[0]!.toLowerCase()]) ?? 'en';
  const lang = tag.split('-')[0]!.toLowerCase();
  text = languages[lang]!;
  try {
    locale = Intl.getCanonicalLocales(tag)[0]!;
  } catch {
    locale = lang; // well formed for the options, yet refused by Intl: its language still is not
  }
  return { lang, rtl: lang == 'ar' };
}
