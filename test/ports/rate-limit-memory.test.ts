/**
 * The rate-limiter port suite on the core's memory limiter (the reference every other limiter is
 * held to), and the suite against limiters that are wrong in one way each: it must fail every one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runRateLimitSuite } from '../../conformance/index.js';
import type { LimitClass, RateDecision, RateLimiterPort } from '../../core/ports/rate-limit.js';
import { memoryRateLimiter, slidingLimits, type Bucket, type RateLimits } from '../../core/rate-limits.js';

runRateLimitSuite({
  test,
  prefix: 'memory: ',
  create: (limits) => memoryRateLimiter(limits),
  skip: { instances: "one process's memory: no other instance can share it" },
});

const strip = ({ allowed, limit, remaining, resetSeconds, retryAfterSeconds }: RateDecision): RateDecision => ({ allowed, limit, remaining, resetSeconds, retryAfterSeconds });

/** The core's GCRA with one flaw. */
type Flaw = 'counts refused takes' | "uses the server's clock" | 'consumes on peek' | 'reads, then writes after an await';

function flawed(limits: RateLimits, flaw: Flaw): RateLimiterPort {
  const byClass = slidingLimits(limits);
  const buckets = new Map<string, Bucket>();
  const id = (key: string, limitClass: LimitClass) => `${limitClass}\u0000${key}`;
  const take = async (key: string, limitClass: LimitClass, nowMs: number) => {
    if (flaw === "uses the server's clock") nowMs = Date.now();
    const limit = byClass[limitClass];
    const bucket = buckets.get(id(key, limitClass));
    const level = limit.levelAt(bucket, nowMs);
    if (flaw === 'reads, then writes after an await') await new Promise((resolve) => setImmediate(resolve));
    const decided = limit.decide(level, true);
    if (decided.allowed || flaw === 'counts refused takes') buckets.set(id(key, limitClass), { level: level + 1, at: Math.max(nowMs, bucket?.at ?? nowMs) });
    return strip(decided);
  };
  return {
    take,
    peek(key, limitClass, nowMs) {
      if (flaw === 'consumes on peek') return take(key, limitClass, nowMs);
      if (flaw === "uses the server's clock") nowMs = Date.now();
      const limit = byClass[limitClass];
      return strip(limit.decide(limit.levelAt(buckets.get(id(key, limitClass)), nowMs), false));
    },
  };
}

/** Fixed windows: the whole budget back at each boundary (what the limiter was before it slid). */
function fixedWindows(limits: RateLimits): RateLimiterPort {
  const counts = new Map<string, number>();
  const decide = (key: string, limitClass: LimitClass, nowMs: number, take: boolean): RateDecision => {
    const { limit, windowSeconds } = limits[limitClass];
    const windowMs = windowSeconds * 1000;
    const window = Math.floor(nowMs / windowMs);
    const id = `${limitClass}\u0000${key}\u0000${window}`;
    const used = counts.get(id) ?? 0;
    const allowed = used < limit;
    if (allowed && take) counts.set(id, used + 1);
    const resetSeconds = Math.ceil(((window + 1) * windowMs - nowMs) / 1000);
    return { allowed, limit, remaining: limit - used - (allowed && take ? 1 : 0), resetSeconds, retryAfterSeconds: allowed ? 0 : resetSeconds };
  };
  return { take: async (k, c, n) => decide(k, c, n, true), peek: (k, c, n) => decide(k, c, n, false) };
}

/** Each wrong limiter, and the test of the suite that must fail it. */
const mutants: [string, (limits: RateLimits) => RateLimiterPort, string][] = [
  ['counts in fixed windows', fixedWindows, 'sliding: a burst across a window boundary'],
  ['counts refused takes', (limits) => flawed(limits, 'counts refused takes'), 'budget: refused takes count nothing'],
  ["uses the server's clock", (limits) => flawed(limits, "uses the server's clock"), "clock: time is the caller's nowMs"],
  ['consumes on peek', (limits) => flawed(limits, 'consumes on peek'), 'peek: a peek counts nothing'],
  ['reads, then writes after an await', (limits) => flawed(limits, 'reads, then writes after an await'), 'budget: concurrent takes on one key'],
];

for (const [name, create, mustFail] of mutants) {
  test(`the port suite fails a limiter that ${name}`, async () => {
    const tests: { name: string; body: () => Promise<void> }[] = [];
    runRateLimitSuite({ test: (testName, body) => tests.push({ name: testName, body }), create, skip: { instances: 'one process' } });
    const failed: string[] = [];
    for (const { name: testName, body } of tests) {
      try {
        await body();
      } catch {
        failed.push(testName);
      }
    }
    assert.ok(
      failed.some((testName) => testName.includes(mustFail)),
      `"${mustFail}" passed against a limiter that ${name}; failed: ${failed.join('; ') || 'none'}`,
    );
  });
}
