/**
 * The port suites that need servers (server-suites.ts: storage and studio on PostgreSQL, the
 * rate-limiter suite on the PostgreSQL and Redis limiters), registered with node:test, which
 * `bun test` and `deno test` both run, plus a first test that says which runtime this is and that
 * node-postgres and ioredis reach the servers from it. The servers are the Node test's
 * (test/runtimes/port-suites.test.ts starts them with test/fixtures/postgres.ts and redis.ts) and
 * come in as URLs: MARKETKIT_TEST_POSTGRES_URL (the maintenance database, as superuser) and
 * MARKETKIT_TEST_REDIS_URL. Without them this file fails; it never skips. Not a test file of Node's.
 */
import { test } from 'node:test';
import pg from 'pg';
import { redisRateLimiter } from '../../../adapters/redis/index.js';
import { registerServerSuites } from './server-suites.js';

const postgresUrl = process.env.MARKETKIT_TEST_POSTGRES_URL;
const redisUrl = process.env.MARKETKIT_TEST_REDIS_URL;
if (!postgresUrl || !redisUrl) {
  throw new Error(
    'server-port-suites.ts needs MARKETKIT_TEST_POSTGRES_URL and MARKETKIT_TEST_REDIS_URL (a running PostgreSQL and Redis); ' +
      'test/runtimes/port-suites.test.ts starts both and sets them: run that, not this file',
  );
}

const runtime = (globalThis as { Bun?: unknown }).Bun !== undefined ? 'Bun' : (globalThis as { Deno?: unknown }).Deno !== undefined ? 'Deno' : 'Node';

test(`runtime servers: this is ${runtime}, and node-postgres and ioredis reach the servers from it`, async () => {
  if (runtime === 'Node') throw new Error('this file is for bun test and deno test');
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string }>('SELECT version()');
    if (!/^PostgreSQL \d+/.test(rows[0]?.version ?? '')) throw new Error(`SELECT version() answered ${JSON.stringify(rows)}`);
  } finally {
    await client.end();
  }
  const limiter = await redisRateLimiter({ url: redisUrl });
  try {
    const decision = await limiter.take(`runtime:${crypto.randomUUID()}`, 'read', Date.now());
    if (!decision.allowed) throw new Error(`a first take was refused: ${JSON.stringify(decision)}`);
  } finally {
    await limiter.close();
  }
});

registerServerSuites(test, { postgresUrl, redisUrl });
