// A merchant's webhook endpoint for tests: verifies each delivery, keeps what came, and
// answers with whatever status the test sets.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceEvent } from '../../contract/events.ts';
import { SIGNATURE_HEADER, verifySignedEvent } from '../../contract/webhook-signature.ts';
import { hmacSha256 } from '../webhooks/signing.ts';

export interface Receiver {
  url: string;
  /** Every verified delivery, in arrival order (repeats included). */
  /** Verified events; `data.reference` and `data.status` read as optional, since DEPOSIT_UNMATCHED has neither. */
  events: Array<ServiceEvent & { data: { reference?: string; status?: string } }>;
  /** Deliveries that failed verification. */
  refused: number;
  /** The status the next deliveries get. */
  status: number;
  close(): Promise<void>;
}

export async function startReceiver(secret: string, status = 200): Promise<Receiver> {
  const receiver: Receiver = { url: '', events: [], refused: 0, status, close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    try {
      receiver.events.push(verifySignedEvent(hmacSha256, Buffer.concat(chunks).toString('utf8'), req.headers[SIGNATURE_HEADER], secret));
    } catch {
      receiver.refused++;
    }
    res.writeHead(receiver.status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
