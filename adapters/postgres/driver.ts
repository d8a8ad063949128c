/**
 * The little the PostgreSQL adapters need from a driver: queries on a pool, transactions on one
 * connection, a session for advisory locks, and close. node-postgres (`pg`, an optional peer
 * dependency) is the one implementation; only this file imports it, and only when a store opens.
 */
import type { Client, Pool, PoolClient, PoolConfig } from 'pg';
import { StorageUnavailableError } from '../../core/errors.js';
import { describe, inSchema, type PgSettings } from './pg-settings.js';

export type PgRow = Record<string, unknown>;

export interface PgResult {
  rows: PgRow[];
  rowCount: number;
}

/** A statement the driver prepares once per connection (node-postgres named statements). */
export interface PgStatement {
  name: string;
  text: string;
}

/** Runs statements; on a pool each call may use another connection, in a transaction all use one. */
export interface PgSession {
  query(statement: string | PgStatement, params?: readonly unknown[]): Promise<PgResult>;
}

export interface PgDriver extends PgSession {
  /**
   * Runs `fn` inside BEGIN ... COMMIT on one connection, rolled back when it throws. A
   * serialization failure (40001) or deadlock (40P01) runs the whole of `fn` again, at most
   * `retries` times (the statements of a failed attempt were rolled back: nothing is kept twice).
   */
  transaction<T>(fn: (tx: PgSession) => Promise<T>): Promise<T>;
  /** One connection outside a transaction, for session-level advisory locks (migrations). */
  session<T>(fn: (session: PgSession) => Promise<T>): Promise<T>;
  /**
   * A connection of its own, outside the pool, that LISTENs on `channel` and hands each
   * notification's payload to `notify`. When it ends for any reason but `close()` (an error, the
   * server gone), `lost` is told once and the connection is dropped: notifications sent meanwhile
   * are lost, and listening again is the caller's to do.
   */
  listen(channel: string, handlers: { notify(payload: string): void; lost(error: Error): void }): Promise<{ close(): Promise<void> }>;
  /** Where the database is, for messages: `host:port/database`, never the password. */
  readonly where: string;
  /** The schema every connection's `search_path` names (schema-name.ts): MarketKit's tables are there. */
  readonly schema: string;
  /** The pool now, for metrics: connections open (`total`), of them `idle`, and queries `waiting` for one. */
  poolStats(): { total: number; idle: number; waiting: number };
  /** Ends every connection of the pool, waiting for those in use to be released. */
  close(): Promise<void>;
}

export type { PgSettings } from './pg-settings.js';

/** Serialization failure, deadlock: the statement or transaction was rolled back and may run again. */
const retryableCodes = new Set(['40001', '40P01']);

/** Error codes and SQLSTATEs that mean "the database cannot be reached", not "the query is wrong". */
const unreachableCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', '57P01', '57P02', '57P03']);

export const sqlState = (error: unknown): string | undefined => (error as { code?: unknown } | null)?.code as string | undefined;

export function isRetryable(error: unknown): boolean {
  return retryableCodes.has(sqlState(error) ?? '');
}

/** True when the error says the database is down or the connection was lost. */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof PostgresUnavailable) return true;
  const code = sqlState(error) ?? '';
  if (unreachableCodes.has(code) || code.startsWith('08')) return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection closed/i.test(message);
}

/**
 * The database cannot be reached (down, restarting, a lost connection). What failed was not
 * done, or rolled back; the store answers again once the database is back, with no restart.
 * A StorageUnavailableError of the core: clients get 503 SERVICE_UNAVAILABLE, never this message.
 */
export class PostgresUnavailable extends StorageUnavailableError {
  constructor(who: string, where: string, cause: unknown) {
    const detail = cause instanceof Error ? cause.message || sqlState(cause) || cause.name : String(cause);
    super(`${who}: the PostgreSQL database at ${where} is unavailable (${detail}); is the server running and reachable?`, { cause });
    this.name = 'PostgresUnavailable';
  }
}

/** node-postgres is not installed. */
export class PostgresDriverUnavailable extends Error {
  constructor(who: string) {
    super(`${who}: the PostgreSQL adapter needs the pg package: run "npm install pg"`);
    this.name = 'PostgresDriverUnavailable';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the functions below share: the pool, its settings, and how to name the database in messages. */
interface PgPoolState {
  pool: Pool;
  /** node-postgres's Client, for the LISTEN connection outside the pool. */
  PgClient: typeof import('pg').Client;
  config: PoolConfig;
  settings: PgSettings;
  who: string;
  where: string;
}

/** Opens a pool (connections are made on first use). `who` names the adapter in messages. */
export async function openPgDriver(settings: PgSettings, who: string): Promise<PgDriver> {
  let PgPool: typeof import('pg').Pool;
  let PgClient: typeof import('pg').Client;
  try {
    // pg is CommonJS: its exports are the default export of the ESM namespace.
    ({ Pool: PgPool, Client: PgClient } = (await import('pg')).default);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new PostgresDriverUnavailable(who);
  }
  const config = poolConfig(settings);
  const pool: Pool = new PgPool(config);
  // An idle connection whose server goes away emits 'error'; unhandled, it would end the process.
  // The pool drops that connection and the next query opens a new one.
  pool.on('error', (error) => settings.onError?.(error));
  const p: PgPoolState = { pool, PgClient, config, settings, who, where: describe(settings) };
  return {
    where: p.where,
    schema: settings.schema,
    query: (statement, params) => retrying(settings, () => withClient(p, (client) => run(client, statement, params))),
    transaction: (fn) => retrying(settings, () => withClient(p, (client, discard) => inTransaction(client, discard, fn))),
    session: (fn) => withClient(p, (client) => fn({ query: (statement, params) => run(client, statement, params) })),
    listen: (channel, handlers) => listenOn(p, channel, handlers),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async close() {
      await pool.end();
    },
  };
}

function poolConfig(settings: PgSettings): PoolConfig {
  const { url, options } = inSchema(settings);
  const config: PoolConfig = {
    ...(settings.connection as PoolConfig | undefined),
    ...(url ? { connectionString: url } : {}),
    options,
    max: settings.poolSize,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    idleTimeoutMillis: settings.idleTimeoutMs,
    application_name: 'marketkit',
  };
  // 0 leaves the server's own setting.
  if (settings.statementTimeoutMs > 0) config.statement_timeout = settings.statementTimeoutMs;
  return config;
}

const unavailable = ({ who, where }: PgPoolState, error: unknown) => (isUnreachable(error) ? new PostgresUnavailable(who, where, error) : error);

/** A connection of the pool, with an error listener while it is out (the pool's is only on idle ones). */
async function withClient<T>(p: PgPoolState, fn: (client: PoolClient, discard: (error: Error) => void) => Promise<T>): Promise<T> {
  let client: PoolClient;
  try {
    client = await p.pool.connect();
  } catch (error) {
    throw unavailable(p, error);
  }
  let lost: Error | undefined;
  const onError = (error: Error) => (lost = error);
  client.on('error', onError);
  try {
    return await fn(client, (error) => (lost ??= error));
  } catch (error) {
    if (isUnreachable(error)) lost ??= error as Error;
    throw unavailable(p, error);
  } finally {
    client.removeListener('error', onError);
    // A connection that failed is closed, not handed to the next caller.
    client.release(lost ?? false);
  }
}

async function run(client: PoolClient, statement: string | PgStatement, params?: readonly unknown[]): Promise<PgResult> {
  const result = await client.query(typeof statement === 'string' ? { text: statement, values: params as unknown[] } : { ...statement, values: params as unknown[] });
  return { rows: result.rows as PgRow[], rowCount: result.rowCount ?? 0 };
}

async function retrying<T>(settings: PgSettings, attempt: () => Promise<T>): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!isRetryable(error) || tries >= settings.retries) throw error;
      // A little jitter, growing: the other party of a deadlock should get through first.
      await sleep(Math.random() * 5 * (tries + 1));
    }
  }
}

async function inTransaction<T>(client: PoolClient, discard: (error: Error) => void, fn: (tx: PgSession) => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn({ query: (statement, params) => run(client, statement, params) });
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (failed) {
      // The connection is gone (so is the transaction) or in a state no caller should inherit.
      discard(failed as Error);
    }
    throw error;
  }
}

async function listenOn(p: PgPoolState, channel: string, { notify, lost }: Parameters<PgDriver['listen']>[1]): Promise<{ close(): Promise<void> }> {
  // The pool's settings (address, credentials, timeouts); a Client ignores the pool's own.
  const client: Client = new p.PgClient({ ...p.config, keepAlive: true });
  let ended = false;
  const end = (error: Error) => {
    if (ended) return;
    ended = true;
    // The connection is lost already, and `lost` hears why; its end failing too adds nothing.
    client.end().catch(() => {});
    lost(error);
  };
  client.on('error', end);
  client.on('end', () => end(new Error('Connection ended')));
  client.on('notification', (message) => {
    if (!ended && message.channel === channel) notify(message.payload ?? '');
  });
  try {
    await client.connect();
    await client.query(`LISTEN ${client.escapeIdentifier(channel)}`);
  } catch (error) {
    ended = true;
    // The failed LISTEN is the error thrown; an end that fails too adds nothing.
    client.end().catch(() => {});
    throw unavailable(p, error);
  }
  return {
    async close() {
      if (ended) return;
      ended = true;
      // Closing: a connection that fails to end cleanly is gone all the same.
      await client.end().catch(() => {});
    },
  };
}
