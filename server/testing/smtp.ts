// A real SMTP server for tests (the smtp-server package) on 127.0.0.1, keeping each message
// it accepts, decoded enough to read: headers, the text and HTML parts. It can be told to
// refuse the next few messages (a 451, as a server that is busy), to see them tried again.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Received {
  to: string[];
  raw: string;
  subject: string;
  text: string;
  html: string;
}

const qp = (s: string) =>
  Buffer.from(
    s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    'latin1',
  ).toString('utf8');
const decodeWords = (s: string) =>
  s.replace(/\s*=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_, kind: string, data: string) =>
    kind.toLowerCase() === 'b' ? Buffer.from(data, 'base64').toString('utf8') : qp(data.replace(/_/g, ' ')),
  );

function part(raw: string, type: string): string {
  const at = raw.search(new RegExp(`Content-Type: ${type}`, 'i'));
  if (at < 0) return '';
  const rest = raw.slice(at);
  const headEnd = rest.search(/\r?\n\r?\n/);
  const head = rest.slice(0, headEnd);
  const body = rest
    .slice(headEnd)
    .replace(/^\r?\n\r?\n/, '')
    .split(/\r?\n--/)[0]!;
  if (/Content-Transfer-Encoding: base64/i.test(head)) return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (/Content-Transfer-Encoding: quoted-printable/i.test(head)) return qp(body);
  return body;
}

export async function startSmtp() {
  const received: Received[] = [];
  let refuse = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refuse > 0) {
          refuse--;
          return done(Object.assign(new Error('try again later'), { responseCode: 451 }));
        }
        const raw = Buffer.concat(chunks).toString('latin1');
        const headers = raw.slice(0, raw.search(/\r?\n\r?\n/)).replace(/\r?\n[ \t]+/g, ' ');
        const subject = decodeWords(/^Subject: (.*)$/im.exec(headers)?.[1] ?? '');
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.from(raw, 'latin1').toString('utf8'),
          subject,
          text: part(raw, 'text/plain'),
          html: part(raw, 'text/html'),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** Refuses the next `n` messages with a 451. */
    refuseNext: (n: number) => void (refuse = n),
    /** The first message to `to` matching `test`, waited for (up to `ms`). */
    async waitFor(test: (m: Received) => boolean, ms = 15_000): Promise<Received> {
      const deadline = Date.now() + ms;
      for (;;) {
        const found = received.find(test);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no such e-mail arrived; got: ${received.map((m) => `${m.to} ${m.subject}`).join(' | ')}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
