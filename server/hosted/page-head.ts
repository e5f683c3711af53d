// What every page the service serves has in its <head>: the tab's icon and a description for
// whoever lists or shares the link. Pages that are no one's to find (the dashboard) also say noindex.

/** The tab's icon, inline (each page's CSP allows data: images): a coin in the service's blue. */
export const FAVICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><circle cx="16" cy="16" r="15" fill="#2547d0"/><path d="M11 12h10M11 20h10M16 8v16" stroke="#fff" stroke-width="3" stroke-linecap="round"/></svg>',
  );

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The icon and the description (at most 160 characters), and noindex when asked. */
export const headTags = (description: string, noindex = false): string =>
  `<link rel="icon" href="${FAVICON}"><meta name="description" content="${attr(description.replace(/\s+/g, ' ').trim().slice(0, 160))}">` +
  (noindex ? '<meta name="robots" content="noindex">' : '');
