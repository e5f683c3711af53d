// Paying with one signature: what the checkout sends the relay, and what it answers.
// Its own file, so that the checkout's bundle takes it only where the signing path is loaded.
import * as z from 'zod/mini';
import { bool, chainId, int, is, later, text } from './fields.ts';

const address40 = is<`0x${string}`>((v) => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v), 'a 0x address of 40 hex digits');
const wholeText = is<string>((v) => typeof v === 'string' && /^\d{1,78}$/.test(v), 'a whole number as text');

/**
 * POST /api/v1/transaction/relay/:reference: paying with one signature. The
 * customer's wallet signed EIP-3009's TransferWithAuthorization in the token's own EIP-712
 * domain; the service checks it and brings it on chain. Integers are decimal text, as signed.
 */
export const RelayBody = later(() =>
  z.object({
    chain_id: chainId,
    authorization: z.object({
      from: address40,
      to: address40,
      /** What is due, in the token's base units ("24500000" for 24.5 USDC), as signed. */
      value: wholeText,
      /** Seconds since 1970, as signed. */
      validAfter: wholeText,
      validBefore: wholeText,
      nonce: is<`0x${string}`>((v) => typeof v === 'string' && /^0x[0-9a-fA-F]{64}$/.test(v), 'a 32-byte nonce: 0x followed by 64 hexadecimal digits'),
    }),
    signature: is<`0x${string}`>(
      (v) => typeof v === 'string' && /^0x([0-9a-fA-F]{2}){65,4096}$/.test(v),
      'a signature: 0x followed by at least 65 bytes in hexadecimal',
    ),
  }),
);

/** What the relay did: the transaction that carries the signed transfer (ours, or whoever sent it first). */
export const Relayed = later(() =>
  z.object({
    chainId: int,
    txHash: text,
    /** Whether this service's gas wallet sent it (false: someone else brought the same signature on chain first). */
    relayedByUs: bool,
  }),
);
