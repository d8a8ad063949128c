import type { SqlRow, SqlSession } from './session.js';

/**
 * Offset anchors (docs/adapters.md, "Offset anchors"): a B-tree skips an OFFSET row by row, so
 * this keeps, per list, the sort key at every `every`-th position, read as far as an offset page
 * needs by one statement that walks the list's covering index from anchor to anchor (as costly as
 * the plain OFFSET it replaces, once). The page at offset o is then a seek from anchor
 * floor(o / every), inclusive, plus OFFSET o mod every: at most `every` index entries skipped,
 * whatever the list's size.
 *
 * Anchors are a hint, checked on every use: each holds only under the list's change counter
 * (`moves`, kept by triggers beside the total: migration 15) that it was
 * read with, and the anchored page statement reads that counter in the same statement, so in the
 * same snapshot, as its rows. A page whose counter differs is thrown away and the anchors read
 * again; a page is never answered from anchors another process's write has moved.
 */

/** The sort keys at positions 0, every, 2 * every, ... of a list, as far as read, and the counter they hold under. */
interface Anchors {
  moves: string;
  keys: { key: unknown; id: unknown }[];
  /** The list ended before the next anchor (when they were read). */
  ended: boolean;
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
 * Anchors `from` to `to` (positions / every) of a list, each a seek from the previous one skipping
 * `every - 1` entries of the covering index: reading up to position p costs about what a plain
 * OFFSET p does, never more. The first starts from the anchor id given, or from the list's first
 * row when null. Rows: n, the anchor's key and id, the list's counter in the same snapshot.
 * Parameters: from, start id, filter's, filter's, every - 1, to, counter's.
 */
export const anchorChain = ({ counter, filter, key, order }: AnchoredList) =>
  `WITH RECURSIVE chain(n, k, id) AS (
    SELECT CAST(? AS INTEGER), a.${key}, a.id FROM assets a
      WHERE a.id = COALESCE(?, (SELECT id FROM assets WHERE ${filter} ORDER BY ${key} ${order}, id ${order} LIMIT 1))
    UNION ALL
    SELECT chain.n + 1, a.${key}, a.id FROM chain JOIN assets a
      ON a.id = (SELECT id FROM assets WHERE ${filter} AND (${key}, id) ${order === 'DESC' ? '<' : '>'} (chain.k, chain.id) ORDER BY ${key} ${order}, id ${order} LIMIT 1 OFFSET ?)
      WHERE chain.n < ?
  )
  SELECT (SELECT COALESCE(SUM(moves), 0) ${counter}) AS list_moves, n, k AS anchor_key, id AS anchor_id FROM chain`;

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
 * OFFSET (an empty list, or one that kept moving under three tries).
 */
export function offsetAnchors(db: SqlSession, { every, lists }: OffsetAnchorOptions) {
  const cache = new Map<string, Anchors>();
  const remember = (name: string, anchors: Anchors) => {
    cache.delete(name);
    cache.set(name, anchors);
    if (cache.size > lists) cache.delete(cache.keys().next().value!);
  };
  /** `anchors` read on to anchor `want` (from scratch when undefined); null when they moved or the list is empty. */
  const extend = async (chain: string, anchors: Anchors | undefined, want: number, counterParams: unknown[], filterParams: unknown[]): Promise<Anchors | null> => {
    const from = anchors ? anchors.keys.length - 1 : 0;
    const rows = await db.all(chain, [from, anchors?.keys[from]!.id ?? null, ...filterParams, ...filterParams, every - 1, want, ...counterParams]);
    // No row: an empty list, or the anchor started from is gone (so the list moved).
    if (rows.length === 0 || (anchors && String(rows[0]!.list_moves) !== anchors.moves)) return null;
    rows.sort((a, b) => Number(a.n) - Number(b.n));
    const read = rows.map((row) => ({ key: row.anchor_key, id: row.anchor_id }));
    return { moves: String(rows[0]!.list_moves), keys: [...(anchors?.keys.slice(0, from) ?? []), ...read], ended: Number(rows.at(-1)!.n) < want };
  };
  return {
    async page(name: string, statements: { chain: string; page: string }, counterParams: unknown[], filterParams: unknown[], limit: number, offset: number): Promise<SqlRow[] | null> {
      const want = Math.floor(offset / every);
      let anchors = cache.get(name);
      for (let attempt = 0; attempt < 3; attempt++) {
        if (!anchors || (anchors.keys.length <= want && !anchors.ended)) {
          const read = await extend(statements.chain, anchors, want, counterParams, filterParams);
          if (!read) {
            cache.delete(name);
            // Read from scratch and still nothing: an empty list, whose plain OFFSET is cheap.
            if (!anchors) return null;
            anchors = undefined;
            continue;
          }
          anchors = read;
          remember(name, anchors);
        }
        // Past the last anchor the list ends within `every` rows of it (when the anchors were read).
        const at = Math.min(want, anchors.keys.length - 1);
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
