// The lists' cursors (contract/paging.ts): opaque to the client, base64url of the list's name
// and where its last item stood. A cursor is read back only by the list that made it: another
// list's cursor, or text that is no cursor, is a 400 naming `cursor`.
import { invalidField } from '../domain/errors.ts';

/** An id that is a UUID, as the service writes them. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const PROBLEM = 'expected a cursor this list answered as next';

/** The cursor after `parts` (the last item's keys, none holding ':') in the list `list`. */
export const cursorText = (list: string, ...parts: Array<string | number>): string => Buffer.from([list, ...parts].join(':')).toString('base64url');

/** The parts a cursor of `list` holds, each checked by its pattern; otherwise the 400. */
export function cursorParts(list: string, cursor: string, patterns: RegExp[]): string[] {
  const [name, ...parts] = Buffer.from(cursor, 'base64url').toString('utf8').split(':');
  if (name !== list || parts.length !== patterns.length || !parts.every((part, i) => patterns[i].test(part))) throw invalidField('cursor', PROBLEM);
  return parts;
}

/** A keyset cursor's (created, id): the list's order is (created_ms, id). */
export function keysetOf(list: string, cursor: string, id: RegExp): { createdMs: number; id: string } {
  const [createdMs, key] = cursorParts(list, cursor, [/^\d{1,16}$/, id]);
  return { createdMs: Number(createdMs), id: key };
}

/** The answer's paging fields for a page read with one row more than `limit` (that row says there is more). */
export function pageOf<T>(rows: T[], limit: number, next: (last: T) => string): { page: T[]; next: string | null; has_more: boolean } {
  const page = rows.slice(0, limit);
  const more = rows.length > limit;
  return { page, next: more ? next(page.at(-1)!) : null, has_more: more };
}
