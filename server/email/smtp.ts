// Sending one e-mail through the operator's SMTP server (SMTP_URL), with nodemailer. What a
// refusal says is reduced to its codes: an SMTP server's reply may quote the recipient's
// address, which no log and no table keeps.
import type { Transporter } from 'nodemailer';
import type { Email } from './rules.ts';

export interface MailSender {
  send(email: Email): Promise<void>;
  close(): void;
}

/** Why an attempt failed, in words that name no person: the SMTP reply code, the client's error code. */
export function failureOf(error: unknown): string {
  const e = error as { responseCode?: number; code?: string; command?: string };
  return [e.code, e.command, e.responseCode].filter((part) => part !== undefined && part !== '').join(' ') || 'error';
}

export function smtpSender(url: string, from: string, timeoutMs = 20_000): MailSender {
  // nodemailer (some 40 modules) is loaded with the first e-mail, not with the service.
  let transport: Promise<Transporter> | undefined;
  const open = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) => {
      const made = nodemailer.createTransport(url, { from });
      // Each attempt is bounded: a server that never answers holds one e-mail's lease, not the job.
      Object.assign(made.options, { connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
      return made;
    }));
  return {
    async send(email) {
      await (await open()).sendMail({ from, to: email.to, subject: email.subject, text: email.text, html: email.html });
    },
    close: () => void transport?.then((made) => made.close()),
  };
}
