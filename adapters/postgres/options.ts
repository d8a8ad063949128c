import * as v from 'valibot';
import { parseOptions } from '../../core/options.js';
import { ConfigurationError } from '../../core/errors.js';
import { openPgDriver, type PgDriver } from './driver.js';
import type { MigrationReport } from '../sql/migrations/runner.js';
import { migratePg } from './migrate.js';
import { SchemaOption } from './schema-name.js';

const count = (name: string, min: number) => v.pipe(v.number(`${name} must be a number`), v.integer(`${name} must be a whole number`), v.minValue(min, `${name} must be ${min} or more`));

/** The options every PostgreSQL adapter of MarketKit takes for its connection pool. */
export const PostgresOptionsSchema = v.object({
  /** `postgres://user:password@host:port/database?sslmode=...` */
  url: v.optional(v.pipe(v.string('url must be a postgres:// URL'), v.regex(/^postgres(ql)?:\/\//, 'url must start with postgres:// or postgresql://'))),
  /** node-postgres connection options (host, port, user, password, database, ssl, ...), instead of url. */
  connection: v.optional(v.looseObject({}, 'connection must be an object of node-postgres connection options')),
  /**
   * The PostgreSQL schema MarketKit's tables, function and triggers live in (every connection's
   * `search_path`), created at the first open when missing; `marketkit` by default. A lowercase
   * name: letters a-z, digits and _ (docs/adapters.md).
   */
  schema: SchemaOption,
  /** Most connections the pool opens. */
  poolSize: v.optional(count('poolSize', 1), 10),
  /** How long one statement may run on the server before it is cancelled; 0 leaves the server's setting. */
  statementTimeoutMs: v.optional(count('statementTimeoutMs', 0), 30_000),
  /** How long opening a connection may take before the call fails as unavailable. */
  connectTimeoutMs: v.optional(count('connectTimeoutMs', 1), 5_000),
  /** How long an unused connection stays open. */
  idleTimeoutMs: v.optional(count('idleTimeoutMs', 1), 10_000),
  /** How often a transaction that met a serialization failure or a deadlock runs again. */
  retries: v.optional(count('retries', 0), 5),
  /** Told of errors on idle connections (the server restarted); they are dropped and replaced. */
  onError: v.optional(v.function('onError must be a function')),
});

export type PostgresOptions = Omit<v.InferInput<typeof PostgresOptionsSchema>, 'onError'> & { onError?: (error: Error) => void };

/** Validates the options, opens the pool and migrates the database; the pool is closed again on failure. */
export async function openPostgres(options: PostgresOptions, who: string): Promise<PgDriver> {
  const config = parseOptions(PostgresOptionsSchema, options, who);
  if ((config.url === undefined) === (config.connection === undefined)) {
    throw new ConfigurationError(who, 'give either url (postgres://user:password@host:5432/database) or connection (node-postgres options), not both and not neither');
  }
  const db = await openPgDriver({ ...config, onError: config.onError as ((error: Error) => void) | undefined }, who);
  try {
    await migratePg(db, who);
  } catch (error) {
    // The migration's error is the one thrown; a pool that fails to close too adds nothing.
    await db.close().catch(() => {});
    throw error;
  }
  return db;
}

/**
 * Applies the migrations the database lacks, and nothing else (`marketkit migrate`, for deploy
 * pipelines): the same advisory lock as every open, so it is safe beside running instances.
 */
export async function migratePostgres(options: PostgresOptions, who = 'marketkit migrate'): Promise<MigrationReport & { where: string }> {
  const config = parseOptions(PostgresOptionsSchema, options, who);
  if ((config.url === undefined) === (config.connection === undefined)) {
    throw new ConfigurationError(who, 'give either url (postgres://user:password@host:5432/database) or connection (node-postgres options), not both and not neither');
  }
  const db = await openPgDriver({ ...config, onError: config.onError as ((error: Error) => void) | undefined }, who);
  try {
    return { ...(await migratePg(db, who)), where: db.where };
  } finally {
    // The migration's outcome is what counts; a pool that fails to close adds nothing to it.
    await db.close().catch(() => {});
  }
}
