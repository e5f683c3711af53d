// Structured logs on stdout (pino): one line per request and per delivery. Keys, secrets and
// personal data are never logged; the redaction below is the second line of defence.
import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

export function createLogger(level = process.env.LOG_LEVEL ?? 'info', destination?: DestinationStream): Logger {
  const options = {
    level,
    base: undefined,
    redact: {
      paths: [
        'authorization',
        '*.authorization',
        'headers.authorization',
        '*.headers.authorization',
        '"x-api-key"',
        '*["x-api-key"]',
        '*.headers["x-api-key"]',
        'secret',
        '*.secret',
        'secretKey',
        '*.secretKey',
        'publicKey',
        '*.publicKey',
        'webhookSecret',
        '*.webhookSecret',
        'email',
        '*.email',
        'customer_email',
        '*.customer_email',
        'customerEmail',
        '*.customerEmail',
        'name',
        '*.customer_name',
        'customerName',
        '*.customerName',
        'metadata',
        '*.metadata',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
