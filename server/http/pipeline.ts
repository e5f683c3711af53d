// The HTTP pipeline, the same for every request: parse the target → match a route → authenticate
// → check its input against the route's schemas, and run its checks → run its handler → reply. Every error on the way, an unknown path and a wrong method
// included, goes through the one mapper (respond.ts); nothing a client sends can end the process.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Account } from '../domain/account.ts';
import { DomainError, MethodNotAllowed, NotFound } from '../domain/errors.ts';
import type { Logger } from '../service/log.ts';
import { authenticate, authenticateOperator, type KeyOwners, type SessionLookup } from './auth.ts';
import { clientRequestId, newRequestId, REQUEST_ID_HEADER } from './request-id.ts';
import { cors, errorReply, internalError, sendJson, type Reply } from './respond.ts';
import { Router, type Auth, type RouteSpec } from './router.ts';

const REQUEST_LOG_SIZE = 2000;

/**
 * What the pipeline reads of the service: its clock and public origin. The rest of it (`S`,
 * the routes' own parts) it hands to each handler unread: HTTP knows no store or feature.
 */
export interface PipelineService {
  now(): number;
  origin(): string;
}

/** What a handler is given: the request, its account, and the service's parts `S`. */
export interface RequestContext<S> {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Who is calling; present on every route whose auth is not 'none'. */
  account: Account;
  service: S;
}

/** A JSON reply, or undefined when the handler answered itself (HTML, files, scripts). */
export type RouteHandler<S> = (ctx: RequestContext<S>) => Promise<Reply | undefined>;

/** A route as the pipeline runs it: matched, authenticated, then handed to its handler. */
export interface ServedRoute<S> extends RouteSpec {
  auth: Auth;
  handler: RouteHandler<S>;
}

export interface PipelineDeps<S extends PipelineService> {
  routes: readonly ServedRoute<S>[];
  owners: KeyOwners;
  service: S;
  log: Logger;
  /** The last requests served, "METHOD /path", for tests to count (at most 2,000 kept). */
  requests: string[];
  /** The dashboard's sessions, for routes a session may call (auth 'merchant'). */
  sessions?: SessionLookup;
  /** What opens the operator's endpoints (auth 'operator'); none: they refuse every caller. */
  operatorToken?: string;
  /** A restricted key authenticated a request: its last use kept (cheaply: merchants/store.ts keyUsed). */
  keyUsed?: (account: Account, req: IncomingMessage) => Promise<void>;
  /** Called once per answered request with its route (the table's path, or "unmatched"), status and duration. */
  observe?: (method: string, route: string, status: number, seconds: number) => void;
}

export function pipeline<S extends PipelineService>(deps: PipelineDeps<S>): (req: IncomingMessage, res: ServerResponse) => void {
  const router = new Router(deps.routes);
  const { log, requests } = deps;

  async function handle(req: IncomingMessage, res: ServerResponse, route: { path: string }): Promise<Reply | undefined> {
    // Parsing the target is inside the boundary: `GET http://[/` must not throw outside it.
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://service.invalid');
    } catch {
      throw new NotFound('Malformed request target');
    }
    requests.push(`${req.method} ${url.pathname}`);
    if (requests.length > REQUEST_LOG_SIZE) requests.splice(0, requests.length - REQUEST_LOG_SIZE);
    if (req.method === 'OPTIONS') return { status: 204, body: undefined };
    const found = router.match(req.method ?? 'GET', url.pathname);
    if (!('spec' in found)) {
      if (found.allowed.length) throw new MethodNotAllowed(`${req.method} is not allowed here; use ${found.allowed.join(', ')}`, found.allowed);
      throw new NotFound(`No endpoint ${req.method} ${url.pathname.slice(0, 200)}`);
    }
    const { spec, params } = found;
    route.path = spec.path;
    if (spec.auth === 'operator') authenticateOperator(req, deps.operatorToken);
    const account =
      spec.auth === 'none' || spec.auth === 'operator'
        ? (undefined as unknown as Account)
        : await authenticate(req, spec.auth, deps.owners, deps.sessions && { lookup: deps.sessions, nowMs: deps.service.now(), origin: deps.service.origin() });
    if (account?.keyId && deps.keyUsed) await deps.keyUsed(account, req);
    const ctx: RequestContext<S> = { req, res, params, query: url.searchParams, account, service: deps.service };
    return spec.handler(ctx);
  }

  return (req, res) => {
    const started = performance.now();
    const requestId = newRequestId();
    const clientId = clientRequestId(req);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    cors(res);
    // The service's own clock, which tests may set apart from the browser's.
    res.setHeader('date', new Date(deps.service.now()).toUTCString());
    // Served on https (PUBLIC_URL): browsers are told to come back on https only, for a year,
    // so a network on the way cannot downgrade a sign-in to plain http.
    if (deps.service.origin().startsWith('https://')) res.setHeader('strict-transport-security', 'max-age=31536000');
    const route = { path: 'unmatched' };
    handle(req, res, route)
      .then(
        (reply) => reply,
        (error: unknown) => {
          if (error instanceof DomainError) return errorReply(error);
          log.error({ err: error, method: req.method, requestId }, 'unexpected error answering a request');
          return internalError();
        },
      )
      .then((reply) => {
        if (reply && reply.status === 204) {
          if (!res.headersSent) res.writeHead(204).end();
        } else if (reply) {
          sendJson(res, reply.status, reply.body, reply.headers);
        }
        // A body the handler did not read (an error came first) is drained, not kept.
        if (!req.complete) req.resume();
        log.info(
          {
            requestId,
            ...(clientId ? { clientRequestId: clientId } : {}),
            method: req.method,
            path: (req.url ?? '').split('?')[0].slice(0, 200),
            status: res.statusCode,
            ms: Math.round(performance.now() - started),
          },
          'request',
        );
        deps.observe?.(req.method ?? 'GET', route.path, res.statusCode, (performance.now() - started) / 1000);
      })
      .catch((error) => log.error({ err: error }, 'could not answer a request'));
  };
}

/** An HTTP server on `host:port` (0: any free port) running the pipeline; malformed requests get a bare 400. */
export async function listen(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  port: number,
  host: string,
): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\n\r\n');
  });
  // A port in use (or an address this machine lacks) rejects the start, for main.ts to say so.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}
