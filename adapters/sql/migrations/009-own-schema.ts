import { changeShards } from './006-change-version.js';
import type { Migration } from './migration.js';

/**
 * Every table PostgreSQL's migrations before this one make, the bookkeeping table, and the rate
 * limiter's table (made by postgresRateLimiter, when one ran on this database): what a wave-2
 * deployment has of MarketKit's.
 */
const tables = [
  'accounts',
  'tokens',
  'categories',
  'assets',
  'images',
  'uploads',
  'upload_garbage',
  'job_leases',
  'studio_records',
  'studio_keys',
  'marketkit_changes',
  'idempotency_keys',
  'webhook_endpoints',
  'webhook_events',
  'webhook_deliveries',
  'marketkit_migrations',
] as const;

/**
 * MarketKit's own schema on PostgreSQL. On a database migrated before MarketKit had one (`from`,
 * the schema its tables were made in, `public` as a rule), every table moves into the schema with
 * ALTER TABLE ... SET SCHEMA, which keeps every row and moves the table's indexes, constraints,
 * triggers and the sequence of its identity column with it (no copy: it is a catalog change,
 * instant whatever the size). The trigger function moves too; triggers refer to it by identity,
 * not by name.
 *
 * Then, on every database, the function is made again with the change table named with its
 * schema: it ran `UPDATE marketkit_changes` as the writing session's search_path found it, so a
 * write from a session in another schema (psql, an application's connection, naming
 * `marketkit.assets`) failed or bumped a table of that name elsewhere. Qualified, it bumps
 * MarketKit's, whoever writes.
 */
export const ownSchema: Migration = {
  version: 9,
  name: 'own-schema',
  // A SQLite file is a database of its own.
  sqlite: [],
  postgres: ({ schema, from }) => [
    ...(from === schema
      ? []
      : [
          ...tables.map((table) => `ALTER TABLE ${from}.${table} SET SCHEMA ${schema}`),
          // Budgets only (an UNLOGGED table a crash empties): one the schema has already wins.
          `DO $$ BEGIN
            IF to_regclass('${schema}.marketkit_rate_buckets') IS NULL THEN ALTER TABLE IF EXISTS ${from}.marketkit_rate_buckets SET SCHEMA ${schema};
            ELSE DROP TABLE IF EXISTS ${from}.marketkit_rate_buckets; END IF;
          END $$`,
          `ALTER FUNCTION ${from}.marketkit_bump_changes() SET SCHEMA ${schema}`,
        ]),
    `CREATE OR REPLACE FUNCTION ${schema}.marketkit_bump_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE ${schema}.marketkit_changes SET version = version + 1 WHERE shard = pg_backend_pid() % ${changeShards};
      RETURN NULL;
    END
    $$`,
  ],
};
