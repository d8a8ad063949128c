/**
 * Sliding windows (core/rate-limits.ts): no window boundary gives a budget back whole, on the memory
 * limiter and on SQLite (shared between processes). Time is the manual clock's: a burst straddles
 * the minute boundary 12:00:59.999 -> 12:01:00.001, where a fixed window would let the limit
 * through twice.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sqliteRateLimiter } from '../../adapters/sqlite/index.js';
import type { RateLimiterPort } from '../../core/ports/rate-limit.js';
import { memoryRateLimiter, type RateLimits } from '../../core/rate-limits.js';
import { as, startServer } from '../fixtures/server.js';

const room = { limit: 1_000_000, windowSeconds: 60 };
const limits: Partial<RateLimits> = { read: { limit: 30, windowSeconds: 60 }, write: { limit: 10, windowSeconds: 60 }, upload: room };
const beforeBoundary = Date.parse('2026-01-15T12:00:59.999Z');

async function withSqliteFile<T>(run: (path: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-sliding-'));
  try {
    return await run(join(dir, 'rate-limits.db'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const limiters: [string, (use: (limiters: RateLimiterPort[]) => Promise<void>) => Promise<void>][] = [
  ['memory', (use) => use([memoryRateLimiter(limits)])],
  [
    'SQLite, two connections on one file (two processes)',
    (use) =>
      withSqliteFile(async (path) => {
        const first = await sqliteRateLimiter({ path, limits });
        const second = await sqliteRateLimiter({ path, limits });
        try {
          await use([first, second]);
        } finally {
          first.close();
          second.close();
        }
      }),
  ],
];

for (const [name, withLimiters] of limiters) {
  describe(`the ${name} limiter slides`, () => {
    test('a burst across a window boundary gets exactly the limit, then one more each limit-th of a window', async () => {
      await withLimiters(async (all) => {
        const take = (i: number, now: number) => all[i % all.length]!.take('token:a', 'write', now);
        const before = await Promise.all(Array.from({ length: 25 }, (_, i) => take(i, beforeBoundary)));
        assert.equal(before.filter((d) => d.allowed).length, 10);
        const after = await Promise.all(Array.from({ length: 25 }, (_, i) => take(i, beforeBoundary + 2)));
        assert.equal(after.filter((d) => d.allowed).length, 0, 'a fixed window would give 10 more here');
        const refused = after[0]!;
        assert.deepEqual(refused, { allowed: false, limit: 10, remaining: 0, resetSeconds: 60, retryAfterSeconds: 6 });
        // One unit drains every 6 s (10 a minute): exactly one more after 6 s, the whole budget after 60 s.
        assert.equal((await take(0, beforeBoundary + 5_999)).allowed, false);
        const next = await take(1, beforeBoundary + 6_000);
        assert.deepEqual([next.allowed, next.remaining], [true, 0]);
        assert.equal((await take(0, beforeBoundary + 6_001)).allowed, false);
        const whole = await Promise.all(Array.from({ length: 25 }, (_, i) => take(i, beforeBoundary + 66_000)));
        assert.equal(whole.filter((d) => d.allowed).length, 10);
      });
    });

    test('steady traffic at the rate is always served; over any minute no more than the limit and what drained in it', async () => {
      await withLimiters(async (all) => {
        const served: number[] = [];
        // 4 requests a second for 3 minutes against 30 a minute.
        for (let t = 0; t < 180_000; t += 250) {
          if ((await all[(t / 250) % all.length]!.take('token:b', 'read', beforeBoundary + t)).allowed) served.push(t);
        }
        for (let start = 0; start + 60_000 <= 180_000; start += 250) {
          const inWindow = served.filter((t) => t >= start && t < start + 60_000).length;
          // A burst of 30, then the rate (30 a minute): at most 30 + 30 in any minute, never a boundary's 2 x 30 at once.
          assert.ok(inWindow <= 60, `${inWindow} in the minute from ${start} ms`);
        }
        // After the first burst, one every 2 s: 30 + 90 in 3 minutes, give or take one.
        assert.ok(Math.abs(served.length - 120) <= 1, `${served.length} served`);
        const burst = served.filter((t) => t < 2_000).length;
        assert.ok(burst <= 31, `the first 2 s got ${burst}`);
      });
    });

    test('peek answers what take would, counts nothing, and sees the other process’s takes', async () => {
      await withLimiters(async (all) => {
        const [first, last] = [all[0]!, all[all.length - 1]!];
        assert.deepEqual(await last.peek('addr', 'failedAuth', beforeBoundary), { allowed: true, limit: 20, remaining: 20, resetSeconds: 0, retryAfterSeconds: 0 });
        for (let i = 0; i < 20; i++) await first.take('addr', 'failedAuth', beforeBoundary);
        assert.deepEqual(await last.peek('addr', 'failedAuth', beforeBoundary), { allowed: false, limit: 20, remaining: 0, resetSeconds: 60, retryAfterSeconds: 3 });
        assert.deepEqual(await last.peek('addr', 'failedAuth', beforeBoundary + 3_000), { allowed: true, limit: 20, remaining: 1, resetSeconds: 57, retryAfterSeconds: 0 });
        assert.equal((await last.peek('addr', 'failedAuth', beforeBoundary + 3_000)).remaining, 1, 'peeking took nothing');
        assert.equal((await last.peek('other', 'failedAuth', beforeBoundary)).remaining, 20, 'per key');
        assert.equal((await last.peek('addr', 'mcpUnauthenticated', beforeBoundary)).remaining, 120, 'per class');
      });
    });
  });
}

describe('through HTTP, with the clock of the test server', () => {
  for (const storage of ['memory', 'sqlite'] as const) {
    test(`${storage}: writes straddling a minute boundary get exactly the limit, with truthful RateLimit-* headers`, async () => {
      await withSqliteFile(async (path) => {
        const rateLimiter = storage === 'sqlite' ? await sqliteRateLimiter({ path, limits }) : undefined;
        const server = await startServer({ rateLimits: limits, ...(rateLimiter ? { rateLimiter } : {}) });
        try {
          const seller = as(server, server.seller.token);
          let slug = 0;
          const burst = () => Promise.all(Array.from({ length: 15 }, () => seller.post('/assets', { title: 'Burst', slug: `burst-${++slug}` })));
          server.clock.set(beforeBoundary);
          const before = await burst();
          assert.equal(before.filter((r) => r.status === 201).length, 10);
          const last = before.filter((r) => r.status === 201).map((r) => Number(r.headers.get('ratelimit-remaining')));
          assert.deepEqual(last.sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
          server.clock.advance(2);
          const after = await burst();
          assert.equal(after.filter((r) => r.status === 201).length, 0, 'the boundary gives nothing back (a fixed window gave 10 more: 20 against 10)');
          const refused = after[0]!;
          assert.deepEqual(
            ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after'].map((h) => refused.headers.get(h)),
            ['10', '0', '60', '6'],
          );
          server.clock.advance(6_000);
          assert.equal((await burst()).filter((r) => r.status === 201).length, 1, 'one drained in 6 s');
          assert.equal((await seller.get('/me')).status, 200, 'reads are a budget of their own');
          server.clock.advance(60_000);
          const whole = await seller.post('/assets', { title: 'Later', slug: 'later' });
          assert.deepEqual([whole.status, whole.headers.get('ratelimit-remaining'), whole.headers.get('ratelimit-reset')], [201, '9', '6']);
        } finally {
          await server.close();
          rateLimiter?.close();
        }
      });
    });
  }
});
