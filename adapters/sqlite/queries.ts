import { sqlStatements } from '../sql/storage.js';
import { sqliteDialect } from './dialect.js';

/**
 * Every statement the adapter runs, by name: the SQL core's (adapters/sql/) in SQLite's words, and
 * its own three. A test asks SQLite how it runs each (EXPLAIN QUERY PLAN): every look-up must use an index.
 */
export const queries = {
  ...sqlStatements(sqliteDialect),
  ping: 'SELECT 1 AS ok',
  // Changes made through this connection, and the count SQLite keeps of commits by any other one.
  changeVersion: 'SELECT total_changes() AS own, data_version AS others FROM pragma_data_version',
  // The callers' version (migration 14), read only when the one above moved.
  callerVersion: 'SELECT version FROM marketkit_callers WHERE id = 1',
} as const;
