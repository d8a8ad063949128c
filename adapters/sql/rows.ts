import type { SqlSession } from './session.js';
import { decode, type RecordTable } from './tables.js';

/** Reads records of `t` on a session (the database, or a transaction). */
export function recordReader(on: SqlSession) {
  return {
    one: async <R>(t: RecordTable<R>, sql: string, ...params: unknown[]): Promise<R | null> => {
      const [row] = await on.all(sql, params);
      return row ? decode(t, row) : null;
    },
    all: async <R>(t: RecordTable<R>, sql: string, ...params: unknown[]): Promise<R[]> => (await on.all(sql, params)).map((row) => decode(t, row)),
    /** A page of records and the total a COUNT(*) AS total statement answers. */
    page: async <R>(t: RecordTable<R>, list: string, listParams: unknown[], count: string, countParams: unknown[]) => {
      const [items, [counted]] = await Promise.all([on.all(list, listParams), on.all(count, countParams)]);
      return { items: items.map((row) => decode(t, row)), total: Number(counted?.total ?? 0) };
    },
  };
}
