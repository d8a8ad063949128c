/**
 * The Redis rate limiter on a real, throwaway redis-server (Debian's; test/fixtures/redis.ts): the
 * rate-limiter port suite with a second instance (its own client) as peer; several instances
 * hammering one key allow exactly the limit; one script per take (EVALSHA, EVAL when the server
 * lost it), one GET per peek, nothing written by a refused take or a peek, keys that expire once
 * drained; and the server stopped mid-test, directly and through HTTP: 503 ('closed') or served
 * ('open'), and back by itself.
 */
import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import { Redis } from 'ioredis';
import { redisRateLimiter, type RedisClientLike, type RedisRateLimiter } from '../../adapters/redis/index.js';
import { runRateLimitSuite } from '../../conformance/index.js';
import type { RateLimits } from '../../core/rate-limits.js';
import { exactLimitAcrossMarketplaces, storeDownClosed, storeDownOpen, type SharedLimiterStore } from '../fixtures/rate-limit-http.js';
import { startRedis, type RedisServer } from '../fixtures/redis.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('redis-server');

let server: RedisServer;
/** A client of the test's own, to look at what the limiter wrote. */
let look: Redis;
before(async () => {
  server = await startRedis();
  look = new Redis(server.url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  look.on('error', () => {});
  await look.connect();
});
after(async () => {
  look?.disconnect();
  await server?.stop();
});

const start = Date.parse('2026-01-15T12:00:00.000Z');

describe('the port suite', () => {
  runRateLimitSuite<RedisRateLimiter>({
    test,
    prefix: 'redis: ',
    create: (limits) => redisRateLimiter({ url: server.url, limits }),
    dispose: (limiter) => limiter.close(),
    capabilities: {
      openPeer: (_limiter, limits) => redisRateLimiter({ url: server.url, limits }),
    },
  });
});

test('redis limiter: five instances (their own clients) hammering one key allow exactly the limit, window after window', async () => {
  const limits: Partial<RateLimits> = { write: { limit: 37, windowSeconds: 60 } };
  const instances = await Promise.all(Array.from({ length: 5 }, () => redisRateLimiter({ url: server.url, limits })));
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

test('redis limiter: one EVALSHA per take (EVAL once when the server lost the script), one GET per peek; a refused take and a peek write nothing', async () => {
  const client = new Redis(server.url);
  const sent: string[] = [];
  const counting: RedisClientLike = {
    evalsha: (...args) => (sent.push('evalsha'), client.evalsha(...args)),
    eval: (...args) => (sent.push('eval'), client.eval(...args)),
    get: (key) => (sent.push('get'), client.get(key)),
  };
  try {
    const limiter = await redisRateLimiter({ client: counting, limits: { write: { limit: 3, windowSeconds: 60 } }, prefix: 'count:' });
    await look.script('FLUSH');
    await limiter.take('token:a', 'write', start);
    assert.deepEqual(sent, ['evalsha', 'eval'], 'NOSCRIPT: the script is sent whole once');
    sent.length = 0;
    for (let i = 0; i < 4; i++) await limiter.take('token:a', 'write', start);
    assert.deepEqual(sent, ['evalsha', 'evalsha', 'evalsha', 'evalsha']);
    const stored = await look.get('count:write:token:a');
    assert.equal(stored, `3 ${start}`, 'units in use and when, as the core keeps them');
    await limiter.take('token:a', 'write', start + 1);
    assert.equal(await look.get('count:write:token:a'), stored, 'a refused take wrote nothing');
    sent.length = 0;
    assert.equal((await limiter.peek('token:b', 'write', start)).remaining, 3);
    assert.deepEqual(sent, ['get']);
    assert.equal(await look.exists('count:write:token:b'), 0, 'a peek wrote nothing');
    await limiter.close();
    assert.equal(await client.ping(), 'PONG', 'close() leaves a given client open');
  } finally {
    client.disconnect();
  }
});

test('redis limiter: a key expires once drained (by the server clock), plus a window of slack; doubles read back exactly', async () => {
  const limiter = await redisRateLimiter({ url: server.url, limits: { write: { limit: 3, windowSeconds: 7 } }, prefix: 'ttl:' });
  try {
    const now = start + 0.1; // not a whole millisecond
    await limiter.take('a', 'write', now);
    await limiter.take('a', 'write', now + 1_000);
    // 3 per 7 s: 2 - 3/7 units in use, drained in (2 - 3/7) x 7/3 s, then 7 s of slack.
    const level = 2 - 1_000 * (3 / 7_000);
    const ttl = await look.pttl('ttl:write:a');
    const expected = Math.ceil(level / (3 / 7_000) + 7_000);
    assert.ok(ttl <= expected && ttl > expected - 1_000, `PTTL ${ttl}, expected about ${expected}`);
    const [storedLevel, storedAt] = (await look.get('ttl:write:a'))!.split(' ').map(Number);
    assert.equal(storedAt, now + 1_000);
    assert.equal(storedLevel, 1 - Math.max(0, now + 1_000 - now) * (3 / 7_000) + 1, 'the same double the core computes');
  } finally {
    await limiter.close();
  }
});

test("redis limiter: a key that is not the limiter's (a wrong type) is an error of its own, not an unavailable store", async () => {
  const limiter = await redisRateLimiter({ url: server.url, prefix: 'wrong:' });
  try {
    await look.rpush('wrong:write:k', 'x');
    await assert.rejects(limiter.take('k', 'write', start), (error: Error) => {
      assert.equal(error.name, 'ReplyError');
      assert.match(error.message, /WRONGTYPE/);
      return true;
    });
  } finally {
    await limiter.close();
  }
});

test('redis limiter: bad options say what to change; a server that is not there fails at open', async () => {
  await assert.rejects(redisRateLimiter({}), /marketkit redisRateLimiter: give either url .* or client/);
  await assert.rejects(redisRateLimiter({ url: 'postgres://x' }), /marketkit redisRateLimiter: url must start with redis:\/\/ or rediss:\/\//);
  await assert.rejects(redisRateLimiter({ url: server.url, onStoreDown: 'maybe' as 'open' }), /onStoreDown must be 'closed' or 'open'/);
  await assert.rejects(redisRateLimiter({ url: server.url, limits: { read: { limit: -1, windowSeconds: 60 } } }), /limit must be 0 or more/);
  await assert.rejects(redisRateLimiter({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 500 }), (error: Error & { code?: string }) => {
    assert.equal(error.name, 'RedisUnavailable');
    assert.match(error.message, /^marketkit redisRateLimiter: the Redis server at 127\.0\.0\.1:1 is unavailable/);
    return true;
  });
});

test('redis limiter: a server that is down rejects takes and peeks as unavailable (closed), or lets them through (open); both recover', async () => {
  const limits: Partial<RateLimits> = { write: { limit: 2, windowSeconds: 60 } };
  const closed = await redisRateLimiter({ url: server.url, limits });
  const heard: Error[] = [];
  const open = await redisRateLimiter({ url: server.url, limits, onStoreDown: 'open', onError: (error) => heard.push(error) });
  const key = `token:${crypto.randomUUID()}`;
  try {
    assert.equal((await closed.take(key, 'write', start)).allowed, true);
    await server.pause();
    const downAt = Date.now();
    const unavailable = (error: Error & { code?: string }) => {
      assert.equal(error.name, 'RedisUnavailable');
      assert.equal(error.code, 'STORAGE_UNAVAILABLE');
      assert.match(error.message, /^marketkit redisRateLimiter: the Redis server at 127\.0\.0\.1:\d+ is unavailable/);
      return true;
    };
    await assert.rejects(closed.take(key, 'write', start), unavailable);
    await assert.rejects(closed.peek(key, 'write', start) as Promise<unknown>, unavailable);
    for (let i = 0; i < 5; i++) {
      assert.deepEqual(await open.take(key, 'write', start), { allowed: true, limit: 2, remaining: 2, resetSeconds: 0, retryAfterSeconds: 0 });
      assert.equal((await open.peek(key, 'write', start)).allowed, true);
    }
    assert.equal(heard.length, 1, 'onError hears of it once');
    assert.ok(Date.now() - downAt < 1_000, 'a stopped server fails at once');
    await server.resume();
    // The clients reconnect by themselves. The server keeps nothing on disk: it starts empty.
    let decision = await closed.take(key, 'write', start).catch(() => undefined);
    for (let i = 0; !decision && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      decision = await closed.take(key, 'write', start).catch(() => undefined);
    }
    assert.deepEqual([decision?.allowed, decision?.remaining], [true, 1]);
    for (let i = 0; i < 50 && (await open.peek(key, 'write', start)).remaining === 2; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual([(await open.take(key, 'write', start)).allowed, (await open.take(key, 'write', start)).allowed], [true, false], 'open counts again once the server is back');
  } finally {
    await server.resume();
    await closed.close();
    await open.close();
  }
});

describe('over HTTP', () => {
  const store: SharedLimiterStore = {
    open: ({ limits, onStoreDown, onError }) => redisRateLimiter({ url: server.url, limits, ...(onStoreDown ? { onStoreDown } : {}), ...(onError ? { onError } : {}) }),
    pause: () => server.pause(),
    resume: () => server.resume(),
    secrets: /redis|127\.0\.0\.1|ECONNREFUSED|writeable|marketkit:rate/i,
  };
  test('redis limiter: two marketplaces on one Redis allow exactly the limit between them', () => exactLimitAcrossMarketplaces(store));
  test("redis limiter, 'closed': Redis stopped mid-test answers 503 SERVICE_UNAVAILABLE with Retry-After (REST, MCP, a wrong token), 200 once it is back", () =>
    storeDownClosed(store));
  test("redis limiter, 'open': Redis stopped mid-test lets requests through, uncounted; counted again once it is back", () => storeDownOpen(store));
});
