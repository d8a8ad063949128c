import type { SqlDatabase, SqlDialect, SqlSession } from '../sql/session.js';
import { postgresSearchWords } from '../sql/migrations/028-listing-search.js';
import { sqlState, type PgDriver, type PgSession, type PgStatement } from './driver.js';

/** PostgreSQL's words for the SQL core: row locks, real booleans, json operators, SQLSTATEs. */
export const postgresDialect: SqlDialect = {
  name: 'postgres',
  lock: { update: ' FOR NO KEY UPDATE', delete: ' FOR UPDATE', share: ' FOR SHARE', skipLocked: ' FOR UPDATE SKIP LOCKED' },
  // One writer per project at a time, as SQLite's write lock makes it for the whole file; projects do not wait for one another.
  nameLock: 'SELECT pg_advisory_xact_lock(1296781140, hashtext(?))',
  // `studio_records.id`'s collation, for the seed of the recursive walks (a parameter has the default one).
  textKey: '?::text COLLATE "C"',
  boolean: (value) => value,
  jsonText: (column, field) => `(${column} ->> '${field}')`,
  distinct: (a, b) => `${a} IS DISTINCT FROM ${b}`,
  byteOrder: (column) => `${column} COLLATE "C"`,
  // The index of migration 10 is on lower(username).
  sameIgnoringCase: (column) => `lower(${column}) = lower(?)`,
  // translate(), not lower(): lower() folds by the database's locale (É to é); the search folds A-Z only.
  containsFolded: (column) => `strpos(translate(${column}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), ?) > 0`,
  // The GIN index of migration 28 on marketkit_grams of this very expression: the rows whose
  // trigrams hold every trigram of the text asked for.
  wordIndex: { candidates: `SELECT id FROM assets WHERE marketkit_grams(${postgresSearchWords}) @> marketkit_grams(?)`, term: (folded) => folded },
  isUniqueViolation: (error, index) => sqlState(error) === '23505' && (index === undefined || (error as { constraint?: string }).constraint === index),
  isForeignKeyViolation: (error) => sqlState(error) === '23503',
  // The row itself as the object: every column, in the table's order.
  rowsAsJson: (from, alias, _columns, order) => `(SELECT COALESCE(json_agg(${alias} ORDER BY ${order}), '[]'::json) FROM ${from})`,
  // gen_random_uuid() is built in from PostgreSQL 13; `@>` of a one-element array (`?` is a placeholder here).
  oneStatement: {
    uuid: 'gen_random_uuid()::text',
    jsonArrayHas: (column, value) => `${column} @> jsonb_build_array(${value})`,
  },
};

/** A statement of the SQL core in PostgreSQL's placeholders: `?` as `$1, $2, ...`. */
export function postgresText(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Names unique in the process: a named statement is prepared once per connection under its name. */
const named = new Map<string, PgStatement>();
const statement = (sql: string): PgStatement => {
  let found = named.get(sql);
  if (!found) named.set(sql, (found = { name: `marketkit_sql_${named.size}`, text: postgresText(sql) }));
  return found;
};

/**
 * The SQL core's session on node-postgres: `?` rendered as `$1, $2, ...`, each statement a named
 * statement (prepared once per connection), transactions on one connection of the pool with the
 * driver's retries of serialization failures and deadlocks.
 */
export function postgresSession(db: PgDriver): SqlDatabase {
  const on = (session: PgSession): SqlSession => ({
    all: async (sql, params = []) => (await session.query(statement(sql), params)).rows,
    run: async (sql, params = []) => (await session.query(statement(sql), params)).rowCount,
  });
  return { dialect: postgresDialect, ...on(db), transaction: (fn) => db.transaction((tx) => fn(on(tx))) };
}
