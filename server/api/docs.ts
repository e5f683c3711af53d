// The API's description, served: the OpenAPI 3.1 document and its human-readable page, both
// made once per origin from the routes (each declares its schemas) by api-doc.ts, and served
// compressed (brotli or gzip, by Accept-Encoding) with an ETag (304 when unchanged). The routes
// are handed in by the table that lists them (no import back to it).
import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { sendBuilt, type BuiltFile } from '../http/static.ts';
import * as z from 'zod/mini';
import { text } from '../../contract/fields.ts';
import { referencePage, STYLE } from './reference.ts';
import { openApiDocument } from './api-doc.ts';
import type { Handler as AnyHandler, Schemas } from './context.ts';
import { route, type Route } from './route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'origin';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

/**
 * A document as a built file (http/static.ts): its bytes, brotli and gzip made once with it (the
 * page is 1.3 MB, the document 550 KB, and neither changes while the service runs), and its
 * hash for the ETag, so a client that has it gets a 304, as checkout.js is served.
 */
function built(text: string): BuiltFile {
  const identity = Buffer.from(text);
  return {
    hash: createHash('sha256').update(identity).digest('hex').slice(0, 16),
    bodies: {
      identity,
      br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
      gzip: gzipSync(identity, { level: 9 }),
    },
  };
}

/** The document's two routes, describing `all()`: every route of the service, these two included. */
export function docsRoutes(all: () => readonly Route[]): Route[] {
  const made = new Map<string, { json: BuiltFile; html: BuiltFile }>();
  function documents(origin: string) {
    let found = made.get(origin);
    if (!found) {
      const doc = openApiDocument(all(), origin);
      found = { json: built(JSON.stringify(doc)), html: built(referencePage(doc)) };
      made.set(origin, found);
    }
    return found;
  }

  /** GET /api/v1/openapi.json: any client may read it, with or without a key. */
  const openapi: Handler = async ({ req, res, service }) => {
    sendBuilt(req, res, documents(service.origin()).json, 'application/json; charset=utf-8', 'revalidate', {
      'x-content-type-options': 'nosniff',
      'access-control-allow-origin': '*',
    });
    return undefined;
  };

  /** GET /api/v1/reference: the same as a page, with no script. */
  const reference: Handler = async ({ req, res, service }) => {
    sendBuilt(req, res, documents(service.origin()).html, 'text/html; charset=utf-8', 'revalidate', {
      'x-content-type-options': 'nosniff',
      'content-security-policy': `default-src 'none'; style-src '${STYLE_HASH}'; img-src data:; frame-ancestors 'none'; base-uri 'none'`,
      'referrer-policy': 'strict-origin-when-cross-origin',
    });
    return undefined;
  };

  return [
    route({
      method: 'GET',
      path: '/api/v1/openapi.json',
      auth: 'none',
      handler: openapi,
      tag: 'Operations',
      summary: 'the API as an OpenAPI 3.1 document',
      description:
        "This document: every operation with its parameters, body, each answer's JSON Schema and the error envelope, both keys as security schemes, and every webhook event under `webhooks`. Generate a client from it in any language.",
      responses: { 200: z.looseObject({ openapi: text }) },
    }),
    route({
      method: 'GET',
      path: '/api/v1/reference',
      auth: 'none',
      handler: reference,
      summary: 'the API reference, a page made from that document (plain HTML, no script)',
    }),
  ];
}
