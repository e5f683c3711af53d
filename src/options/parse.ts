import type * as z from 'zod/mini';
import type { CheckoutError } from '../checkout/errors.ts';
import { fieldErrors } from '../../contract/field-errors.ts';
import { jsonObject } from '../../contract/fields.ts';
import type { Verification } from '../../contract/schemas.ts';
import { isSecretKey, publicKeyMode, type KeyMode } from '../../contract/keys.ts';
import { CheckoutOptionsSchema } from './schema.ts';

type Parsed = z.output<typeof CheckoutOptionsSchema>;

/** Options after the boundary: every value checked, the reference decided, the mode known. */
export interface CheckoutOptions extends Omit<Parsed, 'reference' | 'metadata' | 'onClose' | 'onSuccess' | 'onError'> {
  reference: string;
  /** The merchant gave the reference, so a payment may already exist for it. */
  resumable: boolean;
  metadata?: Record<string, unknown>;
  mode: KeyMode;
  onClose?: (info: CloseInfo) => void;
  onSuccess?: (data: Verification) => void;
  onError?: (error: CheckoutError) => void;
}

export interface CloseInfo {
  reference: string;
  /** The payment's last known status, when a payment was started. */
  status?: Verification['status'];
}

export type OptionsResult = { ok: true; options: CheckoutOptions } | { ok: false; error: CheckoutError; onError?: (error: CheckoutError) => void };

/** 96 random bits: unguessable, and unique for any realistic number of checkouts. */
export function newReference(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return 'sc_' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function parseOptions(input: unknown): OptionsResult {
  try {
    return readOptions(input);
  } catch (error) {
    // A getter that throws, a revoked Proxy: refused like any other bad options.
    const message = `ServiceCheckout: invalid options: could not be read (${error})`;
    return { ok: false, error: { code: 'invalid_options', message, fields: [{ field: '(root)', message: 'could not be read' }] } };
  }
}

function readOptions(input: unknown): OptionsResult {
  const given = (input ?? {}) as Record<string, unknown>;
  const onError = typeof given.onError === 'function' ? (given.onError as (e: CheckoutError) => void) : undefined;
  if (isSecretKey(given.key)) {
    return {
      ok: false,
      onError,
      error: {
        code: 'secret_key',
        message:
          'ServiceCheckout: "key" is a secret key (sk_…). A secret key must never be put in a web page: ' +
          'use your public key (pk_…), and treat this one as leaked.',
        fields: [{ field: 'key', message: 'expected a public key, received a secret key' }],
      },
    };
  }
  // An empty name or e-mail (a blank form field) counts as not given: the modal asks for it.
  const candidate =
    input && typeof input === 'object'
      ? { ...given, name: given.name === '' ? undefined : given.name, email: given.email === '' ? undefined : given.email }
      : input;
  const result = CheckoutOptionsSchema.safeParse(candidate, { reportInput: true });
  if (!result.success) {
    const fields = fieldErrors(result.error);
    return {
      ok: false,
      onError,
      error: {
        code: 'invalid_options',
        message: 'ServiceCheckout: invalid options: ' + fields.map((f) => `${f.field}: ${f.message}`).join('; '),
        fields,
      },
    };
  }
  const options = result.data;
  return {
    ok: true,
    options: {
      ...(options as Omit<CheckoutOptions, 'reference' | 'mode' | 'metadata' | 'resumable'>),
      resumable: options.reference !== undefined,
      metadata: options.metadata === undefined ? undefined : jsonObject(options.metadata),
      reference: options.reference === undefined ? newReference() : String(options.reference),
      mode: publicKeyMode(options.key) as KeyMode,
    },
  };
}

/** A typical merchant's options: what the warm-up parses, so it takes the path a real open takes. */
const TYPICAL: Record<string, unknown> = {
  key: 'pk_test_warmup00',
  amount: '25.50',
  currency: 'USD',
  name: 'Ada',
  email: 'ada@example.com',
  reference: 'order-1',
  metadata: { cart: 1 },
  onSuccess: () => {},
  apiBase: 'https://api.example.com',
};

/**
 * The first parse's one-time work (each field's schema made, its code run once), cut into
 * pieces that each stay far below a long task at 4x CPU: a piece per field, then
 * the whole object, which by then only walks warm code.
 */
export function warmUpPieces(): Array<() => unknown> {
  const shape = CheckoutOptionsSchema.def.shape as Record<string, z.ZodMiniType>;
  return [...Object.keys(shape).map((field) => () => shape[field]!.safeParse(TYPICAL[field])), () => parseOptions(TYPICAL)];
}
