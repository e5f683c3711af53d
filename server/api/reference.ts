// The API reference page: plain HTML made from the OpenAPI document, with no script and no
// request to another origin. Every value is escaped; schemas are shown as JSON.
import { headTags } from '../hosted/page-head.ts';

type Json = Record<string, unknown>;

const esc = (value: unknown) => String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** Inline code spans of the document's Markdown, and nothing else of it. */
const prose = (text: unknown) => esc(text).replace(/`([^`]+)`/g, '<code>$1</code>');
const schemaBlock = (schema: unknown) => `<details><summary>schema</summary><pre>${esc(JSON.stringify(schema, null, 2))}</pre></details>`;
const anchor = (method: string, path: string) => `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, '-');

/** The page's only style, allowed by its hash in the page's CSP. */
export const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
code,pre{font:13px ui-monospace,monospace}pre{background:#f5f5f5;padding:.5rem;overflow:auto}
.op{border-top:1px solid #ddd;padding:.5rem 0}.method{font-weight:700;display:inline-block;min-width:4.5rem}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}`;

function operation(method: string, path: string, op: Json): string {
  const params = (op.parameters as Json[] | undefined) ?? [];
  const security = (op.security as Json[]).map((s) => Object.keys(s)[0]).join(' or ') || 'none';
  const body = op.requestBody as { content: Record<string, { schema: unknown }> } | undefined;
  const responses = Object.entries(op.responses as Record<string, { description: string; content?: Record<string, { schema: unknown }> }>);
  return `<section class="op" id="${anchor(method, path)}">
<h3><span class="method">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code></h3>
<p>${prose(op.summary)}${op.description ? `. ${prose(op.description)}` : ''}</p>
<p>Key: ${esc(security)}</p>
${params.length ? `<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>${params.map((p) => `<tr><td><code>${esc(p.name)}</code></td><td>${esc(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td><code>${esc(JSON.stringify(p.schema))}</code></td></tr>`).join('')}</table>` : ''}
${
  body
    ? Object.entries(body.content)
        .map(([type, { schema }]) => `<p>Body: <code>${esc(type)}</code></p>${schemaBlock(schema)}`)
        .join('')
    : ''
}
<p>Answers:</p><ul>${responses.map(([status, r]) => `<li><strong>${esc(status)}</strong> ${prose(r.description)}${r.content ? schemaBlock(Object.values(r.content)[0].schema) : ''}</li>`).join('')}</ul>
</section>`;
}

export function referencePage(doc: Json): string {
  const info = doc.info as { title: string; description: string };
  const paths = Object.entries(doc.paths as Record<string, Record<string, Json>>);
  const tags = (doc.tags as Array<{ name: string }>).map((t) => t.name);
  const ops = paths.flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
  const schemes = Object.entries((doc.components as { securitySchemes: Record<string, Json> }).securitySchemes);
  const webhooks = Object.entries(doc.webhooks as Record<string, { post: Json }>);
  const shared = Object.entries((doc.components as { schemas: Json }).schemas).filter(([name]) => name !== 'Error');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(info.title)}: reference</title>${headTags(`${info.title}: every operation of the API, its parameters, bodies, answers and errors, and every webhook event.`)}<style>${STYLE}</style></head>
<body><main>
<h1>${esc(info.title)}</h1>
<p>${prose(info.description)}</p>
<p>The same as a machine reads it: <a href="openapi.json"><code>openapi.json</code></a> (OpenAPI 3.1).</p>
<h2>Keys</h2><ul>${schemes.map(([name, s]) => `<li><strong>${esc(name)}</strong>: ${prose(s.description)}</li>`).join('')}</ul>
<h2>Errors</h2><p>Every error answers the same envelope:</p>${schemaBlock((doc.components as { schemas: Json }).schemas.Error)}
${shared.length ? `<h2>Schemas</h2><p>Named by <code>$ref</code> above.</p>${shared.map(([name, schema]) => `<section id="schema-${esc(name)}"><h3><code>${esc(name)}</code></h3>${schemaBlock(schema)}</section>`).join('\n')}` : ''}
<nav><h2>Contents</h2>${tags
    .map(
      (tag) =>
        `<h3>${esc(tag)}</h3><ul>${ops
          .filter(({ op }) => (op.tags as string[]).includes(tag))
          .map(({ path, method }) => `<li><a href="#${anchor(method, path)}">${esc(method.toUpperCase())} ${esc(path)}</a></li>`)
          .join('')}</ul>`,
    )
    .join('')}</nav>
${tags
  .map(
    (tag) =>
      `<h2>${esc(tag)}</h2>${ops
        .filter(({ op }) => (op.tags as string[]).includes(tag))
        .map(({ path, method, op }) => operation(method, path, op))
        .join('\n')}`,
  )
  .join('\n')}
<h2>Webhook events</h2>
${webhooks.map(([name, { post }]) => `<section class="op" id="event-${esc(name)}"><h3>${esc(name)}</h3><p>${prose(post.description)}</p>${schemaBlock((post.requestBody as { content: Record<string, { schema: unknown }> }).content['application/json'].schema)}</section>`).join('\n')}
</main></body></html>`;
}
