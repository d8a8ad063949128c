import { sqlStatements } from '../sql/storage.js';
import { postgresDialect, postgresText } from './dialect.js';
import type { PgStatement } from './driver.js';

/** The adapter's own statements, named statements of node-postgres (prepared once per connection). */
const own = {
  ping: 'SELECT 1 AS ok',
  // The read cache's versions (change-version.ts): sixteen rows, bumped by the writes' triggers (migrations 6 and 14).
  changeVersion: 'SELECT sum(version)::int8 AS version, sum(callers)::int8 AS callers FROM marketkit_changes',
  // maxStalenessMs mode: told after a write committed, with the writing instance's id.
  notifyChange: "SELECT pg_notify('marketkit_changes', $1)",
} as const;

export type QueryName = keyof typeof own;

export const statements = Object.fromEntries(Object.entries(own).map(([name, text]) => [name, { name: `marketkit_storage_${name}`, text }])) as Record<QueryName, PgStatement>;

/** Every statement the adapter runs, by name, as PostgreSQL gets it: the schema test asks PostgreSQL how it runs each (EXPLAIN). */
export const sql: Record<string, string> = {
  ...Object.fromEntries(Object.entries(sqlStatements(postgresDialect)).map(([name, text]) => [name, postgresText(text)])),
  ...own,
};
