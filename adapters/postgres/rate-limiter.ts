import * as v from 'valibot';
import { ConfigurationError } from '../../core/errors.js';
import { parseOptions } from '../../core/options.js';
import type { LimitClass, RateDecision, RateLimiterPort } from '../../core/ports/rate-limit.js';
import { limitClasses, slidingLimits, whenStoreDown, type RateLimits, type SlidingLimit } from '../../core/rate-limits.js';
import { isUnreachable, openPgDriver, PostgresUnavailable, sqlState, type PgResult, type PgSession, type PgStatement } from './driver.js';
import { migrationLockKey } from './migrate.js';
import { SchemaOption } from './schema-name.js';

const who = 'marketkit postgresRateLimiter';

const count = (name: string, min: number) => v.pipe(v.number(`${name} must be a number`), v.integer(`${name} must be a whole number`), v.minValue(min, `${name} must be ${min} or more`));
const limitSchema = v.object({
  limit: v.pipe(v.number('limit must be a number'), v.minValue(0, 'limit must be 0 or more')),
  windowSeconds: v.pipe(v.number('windowSeconds must be a number'), v.gtValue(0, 'windowSeconds must be more than 0')),
});

/** What the limiter needs of a node-postgres Pool given as `pool` (pg.Pool has it). */
export interface PgQueryable {
  query(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

const OptionsSchema = v.object({
  /** `postgres://user:password@host:port/database`: the limiter opens a pool of its own. */
  url: v.optional(v.pipe(v.string('url must be a postgres:// URL'), v.regex(/^postgres(ql)?:\/\//, 'url must start with postgres:// or postgresql://'))),
  /** node-postgres connection options, instead of url. */
  connection: v.optional(v.looseObject({}, 'connection must be an object of node-postgres connection options')),
  /** A node-postgres Pool of the application's, instead of url: used as it is, never closed by close(). */
  pool: v.optional(v.custom<PgQueryable>((p) => typeof (p as PgQueryable | null)?.query === 'function', 'pool must be a node-postgres Pool (an object with query())')),
  /** The schema of the limiter's table, MarketKit's (`marketkit` by default), created when missing: the same as the storage's. */
  schema: SchemaOption,
  limits: v.optional(v.partial(v.object(Object.fromEntries(limitClasses.map((c) => [c, limitSchema])) as Record<LimitClass, typeof limitSchema>))),
  /**
   * When the database cannot be reached: 'closed' (the default) refuses the request, which the
   * core answers with 503 SERVICE_UNAVAILABLE and Retry-After; 'open' lets it through uncounted.
   */
  onStoreDown: v.optional(v.picklist(['closed', 'open'], "onStoreDown must be 'closed' or 'open'"), 'closed'),
  /** Most connections the limiter's own pool opens. */
  poolSize: v.optional(count('poolSize', 1), 10),
  /** How long a take may run on the server (waiting for the key's row lock included) before it fails as unavailable. */
  statementTimeoutMs: v.optional(count('statementTimeoutMs', 0), 2_000),
  /** How long opening a connection may take before the call fails as unavailable. */
  connectTimeoutMs: v.optional(count('connectTimeoutMs', 1), 2_000),
  idleTimeoutMs: v.optional(count('idleTimeoutMs', 1), 10_000),
  /**
   * With onStoreDown 'open', told when the database cannot be reached (at most once a minute
   * while it lasts: nothing else tells of it). With 'closed' the failure goes to the core, whose
   * onError hears it. Errors of idle connections (a restart) are not told: the next take reconnects.
   */
  onError: v.optional(v.function('onError must be a function')),
});

export type PostgresRateLimiterOptions = Omit<v.InferInput<typeof OptionsSchema>, 'onError' | 'pool'> & {
  pool?: PgQueryable;
  onError?: (error: Error) => void;
};

export interface PostgresRateLimiter extends RateLimiterPort {
  /** Ends the limiter's own pool once the calls in flight are done (a given `pool` is left open). */
  close(): Promise<void>;
}

/** The table of every key with units in use; UNLOGGED: no WAL, emptied by a crash of the server. */
export const rateLimitTable = 'marketkit_rate_buckets';

/** Slack for floating-point sums, as core/rate-limits.ts has it (a level within it of a whole number is that number). */
const epsilon = 1e-6;

/**
 * The limiter's statements on the table in `schema`, named with the schema: they may run on an
 * application's pool (`pool`), whose connections work in a schema of the application's, and a
 * prepared statement's name is taken once per connection.
 *
 * One take, one statement. The row of (class, key) is inserted with one unit in use, or updated
 * under its row lock (ON CONFLICT DO UPDATE: of concurrent takes on a key, each sees the one
 * before it, on any connection of any instance): the units in use at $3 are computed as the core
 * computes them, and one is added only if that stays within the limit. A refused take leaves
 * level and at as they were; last_level and last_allowed carry the decision back (RETURNING sees
 * the new row only).
 */
function bucketStatements(schema: string) {
  const table = `${schema}.${rateLimitTable}`;
  const take: PgStatement = {
    name: `marketkit_rate_take_${schema}`,
    text: `INSERT INTO ${table} AS b (class, key, level, at, last_level, last_allowed)
VALUES ($1, $2, 1, $3::float8, 0, true)
ON CONFLICT (class, key) DO UPDATE SET (level, at, last_level, last_allowed) = (
  SELECT CASE WHEN s.ok THEN s.l + 1 ELSE b.level END, CASE WHEN s.ok THEN GREATEST(b.at, $3::float8) ELSE b.at END, s.l, s.ok
  FROM (SELECT d.l, d.l + 1 <= $5::float8 + $6::float8 AS ok
        FROM (SELECT CASE WHEN x.v > $6::float8 THEN x.v ELSE 0 END AS l
              FROM (SELECT b.level - GREATEST($3::float8 - b.at, 0) * $4::float8 AS v) x) d) s)
RETURNING last_level, last_allowed`,
  };
  const peek: PgStatement = { name: `marketkit_rate_peek_${schema}`, text: `SELECT level, at FROM ${table} WHERE class = $1 AND key = $2` };
  /** Drained rows (as core/rate-limits.ts says drained) are forgotten now and then: every class at once. */
  const sweep: PgStatement = {
    name: `marketkit_rate_sweep_${schema}`,
    text: `DELETE FROM ${table} b USING unnest($1::text[], $2::float8[]) AS r(class, rate)
WHERE b.class = r.class AND NOT (b.level - GREATEST($3::float8 - b.at, 0) * r.rate > $4::float8)`,
  };
  /**
   * The schema and the table, made when missing, in one statement (a given pool runs each query on
   * any connection) under the migration lock's transaction form, so that it waits for a migration
   * that moves the table and two instances starting at once do not both create. A table of the
   * limiter's made before MarketKit had a schema of its own (in the schema of the default
   * search_path) moves in, keeping its budgets.
   */
  const create = `DO $$
DECLARE legacy text;
BEGIN
  PERFORM pg_advisory_xact_lock(${migrationLockKey});
  IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = '${schema}') THEN CREATE SCHEMA ${schema}; END IF;
  IF to_regclass('${table}') IS NULL THEN
    SELECT n.nspname INTO legacy FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relname = '${rateLimitTable}' AND c.relkind = 'r' AND n.nspname IN (current_user, 'public') AND n.nspname <> '${schema}'
    ORDER BY n.nspname = current_user DESC LIMIT 1;
    IF legacy IS NOT NULL THEN EXECUTE format('ALTER TABLE %I.${rateLimitTable} SET SCHEMA ${schema}', legacy); END IF;
  END IF;
  CREATE UNLOGGED TABLE IF NOT EXISTS ${table} (
    class TEXT NOT NULL,
    key TEXT NOT NULL,
    level DOUBLE PRECISION NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    last_level DOUBLE PRECISION NOT NULL,
    last_allowed BOOLEAN NOT NULL,
    PRIMARY KEY (class, key)
  );
END $$`;
  return { take, peek, sweep, create };
}

/** The errors that say the limiter cannot count now (rather than a bug): the server is down or unreachable, a timeout, a read-only standby, no resources. */
export function isLimiterStoreDown(error: unknown): boolean {
  const code = sqlState(error) ?? '';
  return isUnreachable(error) || code === '57014' || code === '25006' || code.startsWith('53');
}

const decision = ({ allowed, limit, remaining, resetSeconds, retryAfterSeconds }: RateDecision): RateDecision => ({ allowed, limit, remaining, resetSeconds, retryAfterSeconds });

/** The application's own pool as the limiter's session: used as it is, never closed. */
function onGivenPool(pool: PgQueryable): PgSession & { where: string; close(): Promise<void> } {
  return {
    where: 'the given pool',
    async query(statement, params) {
      const query = typeof statement === 'string' ? { text: statement, values: params as unknown[] } : { ...statement, values: params as unknown[] };
      try {
        const result = await pool.query(query);
        return { rows: result.rows, rowCount: result.rowCount ?? 0 } satisfies PgResult;
      } catch (error) {
        throw isUnreachable(error) ? new PostgresUnavailable(who, 'the given pool', error) : error;
      }
    },
    close: async () => {},
  };
}

/**
 * Sliding-window rate limits (GCRA, exactly as core/rate-limits.ts computes them) kept in
 * PostgreSQL, so that every instance of a marketplace shares one budget per key. A take is one
 * statement (an upsert under the key's row lock: of concurrent takes past the limit, on any
 * instance, none is allowed); a peek is one SELECT by primary key. Time is always the `nowMs` the
 * core passes (its clock port), never the server's: the testing kit's clock moves the windows.
 * The table is UNLOGGED: a crash of the server (not a clean restart) forgets every budget.
 */
export async function postgresRateLimiter(options: PostgresRateLimiterOptions): Promise<PostgresRateLimiter> {
  const config = parseOptions(OptionsSchema, options, who);
  const given = [config.url, config.connection, config.pool].filter((o) => o !== undefined).length;
  if (given !== 1) {
    throw new ConfigurationError(who, 'give one of url (postgres://user:password@host:5432/database), connection (node-postgres options) or pool (a node-postgres Pool)');
  }
  const byClass = slidingLimits(config.limits as Partial<RateLimits> | undefined);
  const onError = config.onError as ((error: Error) => void) | undefined;

  const db = config.pool ? onGivenPool(config.pool) : await openPgDriver({ ...config, url: config.url, connection: config.connection, retries: 0, onError: undefined }, who);

  const { take, peek, sweep, create } = bucketStatements(config.schema);
  try {
    await db.query(create);
  } catch (error) {
    // Another instance created it at the same moment: CREATE ... IF NOT EXISTS races on the catalog
    // and fails with a unique violation, "relation exists" or "type exists"; the table is there.
    if (!['23505', '42P07', '42710'].includes(sqlState(error) ?? '')) {
      // The CREATE's error is the one thrown; a pool that fails to close too adds nothing.
      await db.close().catch(() => {});
      throw error;
    }
  }

  const downPolicy = whenStoreDown(config.onStoreDown, onError);
  /** A failure of the store: thrown as unavailable ('closed', the core answers 503) or let through ('open'). */
  const storeDown = (error: unknown, limit: SlidingLimit, nowMs: number): RateDecision => {
    if (!isLimiterStoreDown(error)) throw error;
    return downPolicy(error instanceof PostgresUnavailable ? error : new PostgresUnavailable(who, db.where, error), limit, nowMs);
  };

  const longestWindowMs = Math.max(...Object.values(byClass).map((l) => l.windowMs));
  const classes = [...limitClasses];
  const rates = classes.map((c) => byClass[c].rate);
  let sweepAt = 0;
  let sweeping: Promise<unknown> | undefined;

  return {
    async take(key, limitClass, nowMs) {
      const limit = byClass[limitClass];
      const fresh = limit.decide(0, true);
      // A limit below one unit refuses every take: nothing to count, nothing to ask.
      if (!fresh.allowed) return decision(fresh);
      if (nowMs >= sweepAt && !sweeping) {
        sweepAt = nowMs + longestWindowMs;
        // Beside the takes, not in their way; a failure is tried again a window later.
        sweeping = db
          .query(sweep, [classes, rates, nowMs, epsilon])
          // Only old buckets' space: the takes do not depend on it, and a database down fails them, where onError hears it.
          .catch(() => {})
          .finally(() => (sweeping = undefined));
      }
      let row;
      try {
        row = (await db.query(take, [limitClass, key, nowMs, limit.rate, limit.limit, epsilon])).rows[0]!;
      } catch (error) {
        return storeDown(error, limit, nowMs);
      }
      // The headers of the units in use before this take, as the core decides; whether it was
      // counted is the database's answer (the same comparison, made under the row lock).
      const decided = decision(limit.decide(Number(row.last_level), true));
      decided.allowed = row.last_allowed === true;
      return decided;
    },
    async peek(key, limitClass, nowMs) {
      const limit = byClass[limitClass];
      let row;
      try {
        row = (await db.query(peek, [limitClass, key])).rows[0];
      } catch (error) {
        return storeDown(error, limit, nowMs);
      }
      return row ? decision(limit.decide(limit.levelAt({ level: Number(row.level), at: Number(row.at) }, nowMs), false)) : limit.untouched;
    },
    async close() {
      await sweeping;
      await db.close();
    },
  };
}
