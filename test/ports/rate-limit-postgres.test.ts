/**
 * The PostgreSQL rate limiter on a real, throwaway PostgreSQL 15+ server (test/fixtures/postgres.ts):
 * the rate-limiter port suite with a second instance (its own pool) as peer; several instances
 * hammering one key allow exactly the limit; one statement per take, one SELECT per peek, on an
 * UNLOGGED table; drained rows are forgotten; and the server stopped mid-test, directly and
 * through HTTP: 503 ('closed') or served ('open'), and back by itself.
 */
import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import pg from 'pg';
import { postgresRateLimiter, type PostgresRateLimiter } from '../../adapters/postgres/index.js';
import { runRateLimitSuite } from '../../conformance/index.js';
import type { RateLimits } from '../../core/rate-limits.js';
import { inSchema, queryRows } from '../fixtures/postgres-database.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { exactLimitAcrossMarketplaces, storeDownClosed, storeDownOpen, type SharedLimiterStore } from '../fixtures/rate-limit-http.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('postgresql');

let cluster: PostgresCluster;
let url: string;
before(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase();
});
after(() => cluster?.stop());

const start = Date.parse('2026-01-15T12:00:00.000Z');

describe('the port suite', () => {
  runRateLimitSuite<PostgresRateLimiter>({
    test,
    prefix: 'postgres: ',
    create: (limits) => postgresRateLimiter({ url, limits, poolSize: 4 }),
    dispose: (limiter) => limiter.close(),
    capabilities: {
      openPeer: (_limiter, limits) => postgresRateLimiter({ url, limits, poolSize: 4 }),
    },
  });
});

test('postgres limiter: five instances (their own pools) hammering one key allow exactly the limit, window after window', async () => {
  const limits: Partial<RateLimits> = { write: { limit: 37, windowSeconds: 60 } };
  const instances = await Promise.all(Array.from({ length: 5 }, () => postgresRateLimiter({ url, limits, poolSize: 6 })));
  try {
    const key = `token:${crypto.randomUUID()}`;
    const round = async (n: number, nowMs: number) => {
      const decisions = await Promise.all(Array.from({ length: n }, (_, i) => instances[i % instances.length]!.take(key, 'write', nowMs)));
      return decisions.filter((d) => d.allowed).length;
    };
    assert.equal(await round(400, start), 37);
    assert.equal(await round(200, start + 1), 0);
    // 37 a minute: 18.5 units back in 30 s.
    assert.equal(await round(200, start + 30_000), 18);
    assert.equal(await round(300, start + 30_000 + 60_000), 37);
  } finally {
    await Promise.all(instances.map((limiter) => limiter.close()));
  }
});

test('postgres limiter: a take is one statement and a peek one SELECT, on an UNLOGGED table served by its primary key', async () => {
  const statements: string[] = [];
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const counting = { query: (config: { text: string }) => (statements.push(config.text), pool.query(config as pg.QueryConfig)) };
  try {
    const limiter = await postgresRateLimiter({ pool: counting as never, limits: { write: { limit: 3, windowSeconds: 60 } } });
    await limiter.take('warm-up', 'write', start); // the first take also starts the sweep of drained rows
    await new Promise((resolve) => setTimeout(resolve, 50));
    statements.length = 0;
    for (let i = 0; i < 5; i++) await limiter.take('token:a', 'write', start);
    assert.equal(statements.length, 5, 'one statement per take, allowed or refused');
    assert.ok(statements.every((s) => s.startsWith('INSERT INTO marketkit.marketkit_rate_buckets')));
    statements.length = 0;
    assert.equal((await limiter.peek('token:a', 'write', start)).allowed, false);
    assert.deepEqual(statements.map((s) => s.split(' ')[0]), ['SELECT']);
    await limiter.close();
    assert.equal((await pool.query('SELECT 1 AS one')).rows[0].one, 1, 'close() leaves a given pool open');
  } finally {
    await pool.end();
  }
  const [table] = await queryRows(url, "SELECT relpersistence FROM pg_class WHERE relname = 'marketkit_rate_buckets'");
  assert.equal(table?.relpersistence, 'u', 'UNLOGGED: no WAL for the counts');
  // With sequential scans off (the table is small here), the peek and the sweep's class filter use the primary key.
  const client = new pg.Client({ connectionString: inSchema(url) });
  await client.connect();
  try {
    await client.query('SET enable_seqscan = off');
    const plan = (await client.query("EXPLAIN SELECT level, at FROM marketkit_rate_buckets WHERE class = 'write' AND key = 'token:a'")).rows.map((r) => r['QUERY PLAN']).join('\n');
    assert.match(plan, /Index (Only )?Scan using marketkit_rate_buckets_pkey/, plan);
  } finally {
    await client.end();
  }
});

test('postgres limiter: rows of drained keys are forgotten, those in use are kept', async () => {
  const db = await cluster.createDatabase();
  const limits: Partial<RateLimits> = { write: { limit: 5, windowSeconds: 10 } };
  const limiter = await postgresRateLimiter({ url: db, limits });
  try {
    for (let i = 0; i < 20; i++) await limiter.take(`old:${i}`, 'write', start);
    const count = async () => Number((await queryRows(db, 'SELECT COUNT(*)::int AS n FROM marketkit_rate_buckets'))[0]!.n);
    assert.equal(await count(), 20);
    // The default limits' longest window is a minute: the next take past it sweeps, beside the take.
    await limiter.take('new', 'write', start + 61_000);
    for (let i = 0; i < 50 && (await count()) !== 1; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(await queryRows(db, 'SELECT class, key FROM marketkit_rate_buckets'), [{ class: 'write', key: 'new' }]);
  } finally {
    await limiter.close();
  }
});

test('postgres limiter: ten instances opening one new database at once all start (the table is made once)', async () => {
  const db = await cluster.createDatabase();
  const instances = await Promise.all(Array.from({ length: 10 }, () => postgresRateLimiter({ url: db, poolSize: 1 })));
  await Promise.all(instances.map((limiter) => limiter.close()));
});

test('postgres limiter: bad options say what to change', async () => {
  await assert.rejects(postgresRateLimiter({}), /marketkit postgresRateLimiter: give one of url .*, connection .* or pool/);
  await assert.rejects(postgresRateLimiter({ url, pool: new pg.Pool() }), /give one of url/);
  await assert.rejects(postgresRateLimiter({ url: 'redis://x' }), /marketkit postgresRateLimiter: url must start with postgres:\/\//);
  await assert.rejects(postgresRateLimiter({ url, onStoreDown: 'maybe' as 'open' }), /onStoreDown must be 'closed' or 'open'/);
  await assert.rejects(postgresRateLimiter({ url, limits: { read: { limit: 10, windowSeconds: 0 } } }), /windowSeconds must be more than 0/);
});

test('postgres limiter: a server that is down rejects takes and peeks as unavailable (closed), or lets them through (open); both recover', async () => {
  const limits: Partial<RateLimits> = { write: { limit: 2, windowSeconds: 60 } };
  const closed = await postgresRateLimiter({ url, limits, connectTimeoutMs: 1_000 });
  const heard: Error[] = [];
  const open = await postgresRateLimiter({ url, limits, onStoreDown: 'open', onError: (error) => heard.push(error), connectTimeoutMs: 1_000 });
  const key = `token:${crypto.randomUUID()}`;
  try {
    assert.equal((await closed.take(key, 'write', start)).allowed, true);
    await cluster.pause();
    const downAt = Date.now();
    const unavailable = (error: Error & { code?: string }) => {
      assert.equal(error.name, 'PostgresUnavailable');
      assert.equal(error.code, 'STORAGE_UNAVAILABLE');
      assert.match(error.message, /^marketkit postgresRateLimiter: the PostgreSQL database at 127\.0\.0\.1:\d+\/\w+ is unavailable/);
      return true;
    };
    await assert.rejects(closed.take(key, 'write', start), unavailable);
    await assert.rejects(closed.peek(key, 'write', start) as Promise<unknown>, unavailable);
    for (let i = 0; i < 5; i++) {
      assert.deepEqual(await open.take(key, 'write', start), { allowed: true, limit: 2, remaining: 2, resetSeconds: 0, retryAfterSeconds: 0 });
      assert.equal((await open.peek(key, 'write', start)).allowed, true);
    }
    assert.equal(heard.length, 1, 'onError hears of it once');
    assert.ok(Date.now() - downAt < 5_000, 'a stopped server fails fast');
    await cluster.resume();
    // The budget outlived a clean restart: one was taken before, one is left.
    let decision = await closed.take(key, 'write', start).catch(() => undefined);
    for (let i = 0; !decision && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      decision = await closed.take(key, 'write', start).catch(() => undefined);
    }
    assert.deepEqual([decision?.allowed, decision?.remaining], [true, 0]);
    assert.equal((await open.take(key, 'write', start)).allowed, false, 'open counts again once the server is back');
  } finally {
    await cluster.resume();
    await closed.close();
    await open.close();
  }
});

describe('over HTTP', () => {
  const store: SharedLimiterStore = {
    open: ({ limits, onStoreDown, onError }) => postgresRateLimiter({ url, limits, poolSize: 4, connectTimeoutMs: 1_000, ...(onStoreDown ? { onStoreDown } : {}), ...(onError ? { onError } : {}) }),
    pause: () => cluster.pause(),
    resume: () => cluster.resume(),
    secrets: /postgres|127\.0\.0\.1|ECONNREFUSED|terminat|marketkit_rate/i,
  };
  test('postgres limiter: two marketplaces on one database allow exactly the limit between them', () => exactLimitAcrossMarketplaces(store));
  test("postgres limiter, 'closed': the database stopped mid-test answers 503 SERVICE_UNAVAILABLE with Retry-After (REST, MCP, a wrong token), 200 once it is back", () =>
    storeDownClosed(store));
  test("postgres limiter, 'open': the database stopped mid-test lets requests through, uncounted; counted again once it is back", () => storeDownOpen(store));
});
