import { invalidInput } from '../errors.js';
import type { ListPosition } from '../ports/listings.js';

/** The lists that page by cursor; a cursor names its list, so one list's cursor is refused by another. */
export type CursoredList = 'assets' | 'queue' | 'accounts';

/** The longest cursor accepted: a list name, a timestamp or username and an id, with room to spare. */
export const maxCursorLength = 512;

/** Printable ASCII only: what timestamps, usernames and ids are, and nothing a database refuses (NUL). */
const plain = /^[\x20-\x7e]{1,200}$/;

/**
 * What a cursor of a filtered list carries of its filter (a search's text): FNV-1a of it, 32 bits,
 * in hex. Short whatever the filter, and enough to refuse a cursor passed with another filter; a
 * forged or colliding one only moves where a caller's own list starts, as any forged cursor does.
 */
function fingerprint(filter: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < filter.length; i++) hash = Math.imul(hash ^ filter.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

const toBase64Url = (text: string) => btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/**
 * The opaque `next_cursor` of a page: where the next page starts (the last item's sort key and id),
 * as base64url of JSON. Opaque to clients, who pass it back as it is; not a secret (it says no more
 * than the page did), so not signed: a forged one only moves where a caller's own list starts.
 */
export function encodeCursor(list: CursoredList, position: ListPosition, filter?: string): string {
  return toBase64Url(JSON.stringify([list, position.key, position.id, ...(filter === undefined ? [] : [fingerprint(filter)])]));
}

/**
 * The position a `cursor` query parameter names, or 400 INVALID_INPUT naming `cursor`. A cursor
 * made with a filter (listAssets' q) is good with that filter only, and one made without, only without.
 */
export function decodeCursor(list: CursoredList, cursor: string, filter?: string): ListPosition {
  const refused = () => invalidInput('cursor', 'is not a cursor of this list: pass the pagination.next_cursor of a previous page, as it is');
  if (cursor.length > maxCursorLength || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refused();
  let decoded: unknown;
  try {
    decoded = JSON.parse(atob(cursor.replace(/-/g, '+').replace(/_/g, '/')));
  } catch {
    throw refused();
  }
  if (!Array.isArray(decoded) || decoded.length < 3 || decoded.length > 4 || decoded[0] !== list) throw refused();
  const [, key, id, made] = decoded as unknown[];
  if (made !== (filter === undefined ? undefined : fingerprint(filter))) {
    throw invalidInput('cursor', 'was made for another search (q): pass the pagination.next_cursor of a page with the same q, or start again without a cursor');
  }
  if (typeof key !== 'string' || typeof id !== 'string' || !plain.test(key) || !plain.test(id)) throw refused();
  return { key, id };
}

/** `cursor` and `offset` are two ways to say where a page starts: one at a time (the contract: 400). */
export function refuseCursorWithOffset(input: { cursor?: string | undefined; offset?: number | undefined }): void {
  if (input.cursor !== undefined && input.offset !== undefined) throw invalidInput('offset', 'cannot be given with cursor: a cursor page starts where the cursor says');
}

/** A page as every cursored list answers it: `next_cursor` null on the last page. */
export interface CursorPage<R> {
  items: R[];
  total: number;
  limit: number;
  /** The offset the page was read at: 0 on a cursor page (the cursor, not an offset, placed it). */
  offset: number;
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * Reads a page of `list` from `offset` or after `cursor` (never both: 400). One more item than
 * asked is read, so that `has_more` and `next_cursor` say whether another page follows, exactly,
 * without a second count. `keyOf` is the list's sort key (created_at, updated_at or username);
 * `filter`, the list's filter its cursors are bound to (decodeCursor).
 */
export async function readPage<R extends { id: string }>(
  list: CursoredList,
  input: { limit?: number | undefined; offset?: number | undefined; cursor?: string | undefined },
  defaultLimit: number,
  read: (limit: number, offset: number, after?: ListPosition) => Promise<{ items: R[]; total: number }>,
  keyOf: (record: R) => string,
  filter?: string,
): Promise<CursorPage<R>> {
  refuseCursorWithOffset(input);
  const limit = input.limit ?? defaultLimit;
  const after = input.cursor === undefined ? undefined : decodeCursor(list, input.cursor, filter);
  const offset = after ? 0 : (input.offset ?? 0);
  const { items, total } = await read(limit + 1, offset, after);
  const has_more = items.length > limit;
  const page = has_more ? items.slice(0, limit) : items;
  const last = page.at(-1);
  return { items: page, total, limit, offset, has_more, next_cursor: has_more && last ? encodeCursor(list, { key: keyOf(last), id: last.id }, filter) : null };
}
