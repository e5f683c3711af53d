// The bank account body as the service checks it, for the OpenAPI document. Its zod shape
// (contract/payouts.ts: every write field optional) is only half the check: the handler then
// asks of each currency its own fields (checkBankFields: the required ones present, another
// currency's absent, the currency's country, a bank code of that country, a USD account type).
// zod's JSON Schema output cannot see that, so the document gives one schema per currency,
// made from the same tables the check reads, under a `currency` discriminator.
import { PAYOUT_CURRENCIES, REQUIRED_FIELDS, WRITE_FIELDS, type PayoutCurrency } from '../../contract/payouts.ts';
import { BANKS, COUNTRIES } from '../payouts/rules.ts';

type JsonSchema = Record<string, unknown>;

export const bankAccountName = (currency: PayoutCurrency): string => `BankAccount${currency}`;

/** One schema per currency, for components.schemas; `field` is each write field's own schema (its type and length). */
export function bankAccountSchemas(field: (name: string) => JsonSchema, flag: JsonSchema): Record<string, JsonSchema> {
  return Object.fromEntries(
    PAYOUT_CURRENCIES.map((currency) => {
      const required = REQUIRED_FIELDS[currency];
      const country = COUNTRIES.find((c) => c.currency === currency)!.country;
      const properties: Record<string, unknown> = { currency: { type: 'string', const: currency } };
      for (const name of WRITE_FIELDS) properties[name] = required.includes(name) ? field(name) : false;
      properties.country = { type: 'string', const: country };
      if (required.includes('bank_code'))
        properties.bank_code = {
          type: 'string',
          enum: BANKS[country].map((b) => b.code),
          description: `a bank code of ${country}: GET /api/v1/bank?country=${encodeURIComponent(country)}`,
        };
      if (required.includes('account_type')) properties.account_type = { type: 'string', enum: ['personal', 'business'] };
      properties.default = { ...flag, description: 'true: payouts go to this account unless told otherwise' };
      return [
        bankAccountName(currency),
        {
          type: 'object',
          description: `A ${currency} bank account (${country}): ${required.join(', ')}; another currency's fields are refused.`,
          properties,
          required: ['currency', ...required],
        },
      ];
    }),
  );
}

/** The body: one of the currencies' schemas, by `currency`. */
export const bankAccountBody = (): JsonSchema => ({
  oneOf: PAYOUT_CURRENCIES.map((c) => ({ $ref: `#/components/schemas/${bankAccountName(c)}` })),
  discriminator: { propertyName: 'currency', mapping: Object.fromEntries(PAYOUT_CURRENCIES.map((c) => [c, `#/components/schemas/${bankAccountName(c)}`])) },
});
