import type { SqlRow, SqlSession } from './session.js';

/**
 * Offset anchors (docs/adapters.md, "Offset anchors"): a B-tree skips an OFFSET row by row, so
 * this keeps, per list, the sort key at every `every`-th position, read by one scan of the list's
 * covering index the first time an offset page past the first anchor span is asked. The page at
 * offset o is then a seek from anchor floor(o / every), inclusive, plus OFFSET o mod every: at
 * most `every` index entries skipped, whatever the list's size.
 *
 * Anchors are a hint, checked on every use: each holds only under the list's change counter
 * (`moves`, kept by triggers beside the total: SQLite migration 14, PostgreSQL 13) that it was
 * read with, and the anchored page statement reads that counter in the same statement, so in the
 * same snapshot, as its rows. A page whose counter differs is thrown away and the anchors read
 * again; a page is never answered from anchors another process's write has moved.
 */

/** The sort keys at positions 0, every, 2 * every, ... of a list, and the counter they hold under. */
interface Anchors {
  moves: string;
  keys: { key: unknown; id: unknown }[];
}

/** One list: how to read its counter, its filter, its sort key and direction. */
export interface AnchoredList {
  /** FROM ... WHERE ... of the counter's rows (SUM(moves) over them). */
  counter: string;
  /** The WHERE of the list's rows. */
  filter: string;
  key: 'created_at' | 'updated_at';
  order: 'ASC' | 'DESC';
}

/**
 * The list's anchors (every `?` of a row: its position from 1, its key, its id, the counter),
 * one window over the covering index. Parameters: counter's, filter's, every.
 */
export const anchorScan = ({ counter, filter, key, order }: AnchoredList) =>
  `SELECT (SELECT COALESCE(SUM(moves), 0) ${counter}) AS list_moves, n, k AS anchor_key, id AS anchor_id FROM (
    SELECT ${key} AS k, id, ROW_NUMBER() OVER (ORDER BY ${key} ${order}, id ${order}) AS n FROM assets WHERE ${filter}
  ) ranked WHERE (n - 1) % ? = 0`;

/**
 * A page from an anchor: the counter's one row, joined to the page's rows (none when the page is
 * empty: the counter row still comes, its asset columns null). Parameters: counter's, filter's,
 * anchor key, anchor id, limit, offset.
 */
export const anchoredPage = ({ counter, filter, key, order }: AnchoredList) =>
  `SELECT m.list_moves, a.* FROM (SELECT COALESCE(SUM(moves), 0) AS list_moves ${counter}) m
  LEFT JOIN (SELECT id FROM assets WHERE ${filter} AND (${key}, id) ${order === 'DESC' ? '<=' : '>='} (?, ?) ORDER BY ${key} ${order}, id ${order} LIMIT ? OFFSET ?) page ON 1 = 1
  LEFT JOIN assets a ON a.id = page.id
  ORDER BY a.${key} ${order}, a.id ${order}`;

export interface OffsetAnchorOptions {
  /** Positions between anchors: the most index entries an offset page skips. */
  every: number;
  /** Lists whose anchors are kept, the least recently used dropped first. */
  lists: number;
}

/**
 * The process's anchors, per list (`name`: which list, with its filter's values). `page` answers
 * the rows of an offset page at or past `every`, or null when the caller should run the plain
 * OFFSET (no anchor, or the list kept moving under two tries).
 */
export function offsetAnchors(db: SqlSession, { every, lists }: OffsetAnchorOptions) {
  const cache = new Map<string, Anchors>();
  const remember = (name: string, anchors: Anchors) => {
    cache.delete(name);
    cache.set(name, anchors);
    if (cache.size > lists) cache.delete(cache.keys().next().value!);
  };
  const read = async (name: string, scan: string, counterParams: unknown[], filterParams: unknown[]) => {
    const rows = await db.all(scan, [...counterParams, ...filterParams, every]);
    // An empty list has no anchors to keep: its offset pages are cheap as they are.
    if (rows.length === 0) return null;
    rows.sort((a, b) => Number(a.n) - Number(b.n));
    const anchors = { moves: String(rows[0]!.list_moves), keys: rows.map((row) => ({ key: row.anchor_key, id: row.anchor_id })) };
    remember(name, anchors);
    return anchors;
  };
  return {
    async page(name: string, statements: { scan: string; page: string }, counterParams: unknown[], filterParams: unknown[], limit: number, offset: number): Promise<SqlRow[] | null> {
      let anchors = cache.get(name);
      for (let attempt = 0; attempt < 2; attempt++) {
        anchors ??= (await read(name, statements.scan, counterParams, filterParams)) ?? undefined;
        if (!anchors) return null;
        // Past the last anchor the list ends within `every` rows of it (when the anchors were read).
        const at = Math.min(Math.floor(offset / every), anchors.keys.length - 1);
        const { key, id } = anchors.keys[at]!;
        const rows = await db.all(statements.page, [...counterParams, ...filterParams, key, id, limit, offset - at * every]);
        if (String(rows[0]?.list_moves) === anchors.moves) {
          remember(name, anchors);
          return rows.filter((row) => row.id != null);
        }
        // The list moved since: these anchors are wrong from here on, for every caller.
        cache.delete(name);
        anchors = undefined;
      }
      return null;
    },
  };
}
