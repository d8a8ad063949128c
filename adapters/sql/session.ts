/**
 * The seam of the SQL core (adapters/sql/): the little it needs from a database, whatever the
 * dialect. Statements are written once, with `?` placeholders (the dialect's session renders them
 * as its own), and every storage method is written once over these. A dialect (adapters/sqlite,
 * adapters/postgres) supplies a session over its driver and the few words that differ.
 */
export type SqlRow = Record<string, unknown>;

/** The dialects MarketKit's schema is written for: each migration's variants (migrations/), each dialect-only table or column (tables.ts). */
export type DialectName = 'sqlite' | 'postgres';

/** Runs statements: on the database, or inside one transaction. */
export interface SqlSession {
  /** The rows a statement answers (a SELECT, or a write with RETURNING). */
  all(sql: string, params?: readonly unknown[]): Promise<SqlRow[]>;
  /** Runs a statement that answers no rows; how many rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
}

export interface SqlDatabase extends SqlSession {
  readonly dialect: SqlDialect;
  /**
   * Runs `fn` in one transaction, committed when it resolves, rolled back when it throws. It MUST
   * be safe for read-then-write: no other writer, of this process or another, changes what `fn`
   * read with a `lock` clause until it ends (SQLite: BEGIN IMMEDIATE takes the write lock up
   * front; PostgreSQL: the row locks). Statements outside it never run inside it. The dialect may
   * run `fn` again after a serialization failure or deadlock (all of it was rolled back).
   */
  transaction<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T>;
}

/** What differs between dialects in the statements and answers of the SQL core. */
export interface SqlDialect {
  readonly name: string;
  /** Row-lock clauses put after a SELECT in a transaction; empty where the transaction locks it all (SQLite). */
  readonly lock: {
    /** The row will be updated, its key kept (PostgreSQL: FOR NO KEY UPDATE). */
    update: string;
    /** The row will be deleted (PostgreSQL: FOR UPDATE). */
    delete: string;
    /** The row must not change until this transaction ends (PostgreSQL: FOR SHARE). */
    share: string;
    /** Lock what no other transaction holds, skip the rest (PostgreSQL: FOR UPDATE SKIP LOCKED). */
    skipLocked: string;
  };
  /**
   * A statement that takes a lock on a name (its one parameter) until the transaction ends; null
   * where the transaction's own lock already covers every name (SQLite's write lock).
   */
  nameLock: string | null;
  /** A text parameter as the seed of a recursive walk over a text key (PostgreSQL: with the key's collation). */
  textKey: string;
  /** How a boolean is kept in a column. */
  boolean(value: boolean): unknown;
  /** An expression for the text of a JSON column's top-level field. */
  jsonText(column: string, field: string): string;
  /** `a` and `b` differ, NULL being a value like any other. */
  distinct(a: string, b: string): string;
  /** A text column's expression for ORDER BY in byte order, whatever the database's collation. */
  byteOrder(column: string): string;
  /** `column` equals the one parameter ignoring ASCII case, on the column's case-folded unique index (usernames). */
  sameIgnoringCase(column: string): string;
  /**
   * The text of `column` with A-Z folded to a-z and every other character kept, contains the one
   * parameter (given folded the same way): the same answer on every store, whatever the locale.
   */
  containsFolded(column: string): string;
  /**
   * The listings' word index (migration 28): `candidates` selects, as `id`, the listings whose
   * folded title and slug hold every run of three characters of a search's folded text, given
   * `term(folded)` as its one parameter (a text of three characters or more). A filter only: every
   * candidate is checked with containsFolded after.
   */
  readonly wordIndex: { candidates: string; term(folded: string): string };
  /** The error is a unique violation (SQLITE_CONSTRAINT_UNIQUE, 23505); of `index` when given and the driver names it. */
  isUniqueViolation(error: unknown, index?: string): boolean;
  /** The error is a foreign-key violation (SQLITE_CONSTRAINT_FOREIGNKEY, 23503). */
  isForeignKeyViolation(error: unknown): boolean;
  /**
   * A scalar subquery: the rows of `from` (a table, its alias and a WHERE, which may name the outer
   * query's columns) as a JSON array of objects with `columns`, in `order` (of `alias`'s columns),
   * '[]' for none. Drivers answer it as text (SQLite) or parsed (node-postgres): read it with jsonValue.
   */
  rowsAsJson(from: string, alias: string, columns: readonly string[], order: string): string;
  /**
   * Present where one statement can write a row, its outbox events and their deliveries (data-
   * modifying CTEs: PostgreSQL), so that a create is one round trip with no BEGIN and COMMIT of
   * its own; absent, the SQL core writes them in a transaction of several statements (SQLite,
   * where a statement costs no round trip). The words such a statement needs:
   */
  readonly oneStatement?: {
    /** A new random UUID as text. */
    uuid: string;
    /** The JSON array `column` holds the text `value` (an expression) among its elements. */
    jsonArrayHas(column: string, value: string): string;
  };
}

/** Up to four values for an `IN (?, ?, ?, ?)` of a list of one to four: the list, its last repeated. */
export function fourSlots<T>(values: readonly T[], none: T): T[] {
  return [0, 1, 2, 3].map((i) => values[Math.min(i, values.length - 1)] ?? none);
}
