// What blocks the merchant's money (GET /api/v1/account/warnings), as the service answers it and
// the dashboard's Home reads it: apart from dashboard.ts so that only Home's chunk carries it.
import * as z from 'zod/mini';
import { int, later, oneOf, text, timestamp } from './fields.ts';

const envelope = () => ({ status: oneOf(['success']), statusCode: int, message: z.optional(text) });

/**
 * GET /api/v1/account/warnings: what blocks the merchant's money in the mode, each with a code,
 * the names and numbers its sentence holds (`params`, for a program or a dashboard that says it
 * in another language: `mode`; `network` and `chainId` of no_payout_address; `status` or `error`,
 * and `at`, of webhook_failing; how many `checks` fail, of not_ready) and the sentence in English.
 */
export const WARNING_CODES = ['no_webhook_url', 'no_payout_address', 'webhook_failing', 'not_ready'] as const;
export const WarningParams = later(() =>
  z.object({
    mode: oneOf(['test', 'live']),
    network: z.optional(text),
    chainId: z.optional(int),
    status: z.optional(int),
    error: z.optional(text),
    at: z.optional(timestamp),
    checks: z.optional(int),
  }),
);
export const MoneyWarning = later(() => z.object({ code: oneOf(WARNING_CODES), message: text, params: WarningParams }));
export type MoneyWarning = z.infer<typeof MoneyWarning>;
export const WarningsAnswer = later(() => z.object({ ...envelope(), data: z.array(MoneyWarning) }));
