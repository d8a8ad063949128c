import assert from 'node:assert/strict';
import { manualClock, type ManualClock } from '../../adapters/memory/clock.js';
import type { LimitClass, RateDecision, RateLimiterPort } from '../../core/ports/rate-limit.js';
import { memoryRateLimiter, type RateLimits } from '../../core/rate-limits.js';
import { mulberry32 } from '../../testing/mulberry32.js';
import { registerGroups, type SuiteOptions } from './suite.js';

export type RateLimitGroup = 'budget' | 'sliding' | 'peek' | 'independence' | 'clock' | 'instances' | 'reference';

/**
 * The limits every test of the suite runs under (`create` is given them). Small budgets with
 * rates that are easy to reason about: write gives one unit back every 2 s, failedAuth every 15 s.
 */
export const rateLimitSuiteLimits: RateLimits = {
  read: { limit: 12, windowSeconds: 60 },
  write: { limit: 5, windowSeconds: 10 },
  upload: { limit: 3, windowSeconds: 1 },
  failedAuth: { limit: 4, windowSeconds: 60 },
  mcpUnauthenticated: { limit: 7, windowSeconds: 30 },
  admin: { limit: 2, windowSeconds: 3600 },
};

/** A limiter the suite opens besides the one `create` made, with a `close` to end it. */
export type RateLimiterPeer = RateLimiterPort & { close?: () => unknown };

export interface RateLimitSuiteOptions<R extends RateLimiterPort = RateLimiterPort> extends Omit<SuiteOptions<R, RateLimitGroup>, 'create'> {
  /**
   * A new limiter with these limits. Its store need not be empty: every test uses keys of its own
   * (random), so one database or one Redis can serve the whole run.
   */
  create: (limits: RateLimits) => R | Promise<R>;
  capabilities?: {
    /**
     * Opens another instance on the store of `limiter` (another pool, another client: what another
     * server process would have). The 'instances' group needs it, and the 'reference' group then
     * alternates between the two.
     */
    openPeer?: (limiter: R, limits: RateLimits) => Promise<RateLimiterPeer>;
  };
}

/** 12:00:59.999 UTC: a burst here straddles the minute boundary, where a fixed window would give the budget back. */
const start = Date.parse('2026-01-15T12:00:59.999Z');

/** The decision of a take on a key with nothing in use, and so on: what the headers must say. */
const decided = (allowed: boolean, limit: number, remaining: number, resetSeconds: number, retryAfterSeconds: number): RateDecision => ({
  allowed,
  limit,
  remaining,
  resetSeconds,
  retryAfterSeconds,
});

/** A small seeded generator (mulberry32): the reference test is the same sequence on every run. */
const random = (seed: number): (() => number) => mulberry32(seed).random;

const allowedOf = (decisions: RateDecision[]) => decisions.filter((d) => d.allowed).length;

/**
 * The rate-limiter port's rules, run against any RateLimiterPort: a burst gets exactly the limit,
 * the windows slide (no boundary gives the budget back whole), refused takes count nothing, a peek
 * counts nothing and says what a take would, keys and classes are independent, time is the
 * caller's `nowMs` (the testing kit's manual clock here, far from the real time), several
 * instances on one store share one budget exactly, and every decision is the one the core's
 * memory limiter makes.
 */
export function runRateLimitSuite<R extends RateLimiterPort>(options: RateLimitSuiteOptions<R>): void {
  const limits = rateLimitSuiteLimits;
  /** Keys of this test only, so that the store need not be emptied between tests. */
  const keys = () => {
    const run = crypto.randomUUID();
    return (name: string) => `${name}:${run}`;
  };
  /** Runs `body` with the limiter and a peer on its store; the peer is closed afterwards. */
  const withPeer = async (limiter: R, body: (peer: RateLimiterPeer) => Promise<void>) => {
    const openPeer = options.capabilities?.openPeer;
    assert.ok(openPeer, 'the group "instances" needs capabilities.openPeer (another instance on the same store); an adapter of one process skips it with its reason');
    const peer = await openPeer(limiter, limits);
    try {
      await body(peer);
    } finally {
      await peer.close?.();
    }
  };
  const burst = (limiter: RateLimiterPort, n: number, key: string, limitClass: LimitClass, nowMs: number) =>
    Promise.all(Array.from({ length: n }, () => limiter.take(key, limitClass, nowMs)));

  registerGroups<R, RateLimitGroup>('rate-limiter port', { ...options, create: () => options.create(limits) }, {
    budget: {
      'a burst gets exactly the limit, one take at a time, and the headers say what is left and when it comes back': async (limiter) => {
        const key = keys()('token:a');
        const clock = manualClock(start);
        const seen: RateDecision[] = [];
        for (let i = 0; i < 7; i++) seen.push(await limiter.take(key, 'write', clock.now()));
        // 5 per 10 s: one unit comes back every 2 s, so n units in use are all back in 2n s.
        assert.deepStrictEqual(seen, [
          decided(true, 5, 4, 2, 0),
          decided(true, 5, 3, 4, 0),
          decided(true, 5, 2, 6, 0),
          decided(true, 5, 1, 8, 0),
          decided(true, 5, 0, 10, 0),
          decided(false, 5, 0, 10, 2),
          decided(false, 5, 0, 10, 2),
        ]);
      },
      'concurrent takes on one key: exactly the limit is allowed': async (limiter) => {
        const key = keys()('token:a');
        assert.equal(allowedOf(await burst(limiter, 60, key, 'read', start)), 12);
        assert.equal(allowedOf(await burst(limiter, 20, key, 'read', start)), 0);
      },
      'refused takes count nothing: the next unit comes back on time however many were refused': async (limiter) => {
        const key = keys()('token:a');
        const clock = manualClock(start);
        assert.equal(allowedOf(await burst(limiter, 5, key, 'write', clock.now())), 5);
        for (let i = 0; i < 4; i++) {
          // 100 refused takes within the 2 s the next unit needs.
          assert.equal(allowedOf(await burst(limiter, 25, key, 'write', clock.now())), 0);
          clock.advance(499);
        }
        assert.deepStrictEqual(await limiter.take(key, 'write', clock.now()), decided(false, 5, 0, 9, 1), 'at 1.996 s');
        clock.set(start + 2_000);
        const next = await burst(limiter, 10, key, 'write', clock.now());
        assert.equal(allowedOf(next), 1, 'one unit is back after 2 s: had refusals counted, none would be');
        assert.deepStrictEqual(
          next.find((d) => d.allowed),
          decided(true, 5, 0, 10, 0),
        );
        clock.set(start + 12_000);
        assert.equal(allowedOf(await burst(limiter, 10, key, 'write', clock.now())), 5, 'the whole budget 10 s after the last allowed take');
      },
    },
    sliding: {
      'a burst across a window boundary gets exactly the limit, then one more each limit-th of a window': async (limiter) => {
        const key = keys()('token:a');
        const clock = manualClock(start);
        assert.equal(allowedOf(await burst(limiter, 25, key, 'read', clock.now())), 12);
        clock.advance(2); // 12:01:00.001: a fixed window would give 12 more here
        assert.equal(allowedOf(await burst(limiter, 25, key, 'read', clock.now())), 0);
        clock.set(start + 4_999);
        assert.equal((await limiter.take(key, 'read', clock.now())).allowed, false, '12 a minute: one unit every 5 s');
        clock.set(start + 5_000);
        assert.equal(allowedOf(await burst(limiter, 5, key, 'read', clock.now())), 1);
        clock.set(start + 30_000);
        assert.equal(allowedOf(await burst(limiter, 12, key, 'read', clock.now())), 5, '25 s later: 5 units back');
        clock.set(start + 30_000 + 60_000);
        assert.equal(allowedOf(await burst(limiter, 20, key, 'read', clock.now())), 12, 'a whole window later: the whole budget');
      },
      'steady traffic over the rate: over any window, at most the limit and what came back in it': async (limiter) => {
        const key = keys()('token:b');
        const clock = manualClock(start);
        const served: number[] = [];
        // 20 a second for 4 s against 3 a second.
        for (let t = 0; t < 4_000; t += 50) {
          clock.set(start + t);
          if ((await limiter.take(key, 'upload', clock.now())).allowed) served.push(t);
        }
        for (let from = 0; from + 1_000 <= 4_000; from += 50) {
          const inWindow = served.filter((t) => t >= from && t < from + 1_000).length;
          assert.ok(inWindow <= 6, `${inWindow} served in the second from ${from} ms`);
        }
        // A burst of 3, then one every 333 ms: 3 + 11 in 4 s.
        assert.equal(served.length, 14, `served at ${served.join(', ')}`);
      },
    },
    peek: {
      'a peek counts nothing, however many': async (limiter) => {
        const key = keys()('address:a');
        for (let i = 0; i < 50; i++) assert.deepStrictEqual(await limiter.peek(key, 'failedAuth', start), decided(true, 4, 4, 0, 0));
        assert.equal(allowedOf(await burst(limiter, 3, key, 'failedAuth', start)), 3);
        for (let i = 0; i < 50; i++) assert.equal((await limiter.peek(key, 'failedAuth', start)).allowed, true);
        assert.equal((await limiter.take(key, 'failedAuth', start)).allowed, true, 'the last unit is still there after 50 peeks');
        assert.equal((await limiter.take(key, 'failedAuth', start)).allowed, false);
      },
      'a peek says what a take would decide, the units in use counted before it': async (limiter) => {
        const key = keys()('token:a');
        const clock = manualClock(start);
        await burst(limiter, 2, key, 'write', clock.now());
        assert.deepStrictEqual(await limiter.peek(key, 'write', clock.now()), decided(true, 5, 3, 4, 0));
        await burst(limiter, 3, key, 'write', clock.now());
        assert.deepStrictEqual(await limiter.peek(key, 'write', clock.now()), decided(false, 5, 0, 10, 2));
        clock.advance(3_000);
        assert.deepStrictEqual(await limiter.peek(key, 'write', clock.now()), decided(true, 5, 1, 7, 0), '3 s later: 1.5 units back');
        clock.advance(10_000);
        assert.deepStrictEqual(await limiter.peek(key, 'write', clock.now()), decided(true, 5, 5, 0, 0), 'all back');
      },
    },
    independence: {
      'keys are independent, whatever characters they hold': async (limiter) => {
        const key = keys();
        const names = ['token:a', 'token:b', 'a b', 'ключ', '::1', '192.0.2.1', 'write:x', '%00', 'x'.repeat(1000)].map(key);
        for (const name of names) {
          assert.equal(allowedOf(await burst(limiter, 8, name, 'write', start)), 5, name.slice(0, 40));
        }
        assert.equal(allowedOf(await burst(limiter, 8, key(''), 'write', start)), 5, 'the empty key');
      },
      'classes are independent, each with its own limit': async (limiter) => {
        const key = keys()('shared');
        for (const [limitClass, { limit }] of Object.entries(limits) as [LimitClass, { limit: number }][]) {
          assert.equal(allowedOf(await burst(limiter, limit + 5, key, limitClass, start)), limit, limitClass);
        }
        // A key of one class does not meet the same key of another whose name ends like it.
        const other = keys();
        assert.equal(allowedOf(await burst(limiter, 5, other('x'), 'write', start)), 5);
        assert.equal(allowedOf(await burst(limiter, 12, other('write:x'), 'read', start)), 12);
      },
    },
    clock: {
      "time is the caller's nowMs, not the store's clock: windows move with the clock the core passes": async (limiter) => {
        const key = keys();
        for (const at of [Date.parse('2031-06-01T00:00:00Z'), Date.parse('2001-01-01T00:00:00Z')]) {
          const clock = manualClock(at);
          const name = key(String(at));
          assert.equal(allowedOf(await burst(limiter, 8, name, 'write', clock.now())), 5);
          clock.advance(2_000);
          assert.equal(allowedOf(await burst(limiter, 8, name, 'write', clock.now())), 1, 'one unit back 2 s later by the given clock');
          clock.advance(10_000);
          assert.equal(allowedOf(await burst(limiter, 8, name, 'write', clock.now())), 5, 'all back 10 s later by the given clock');
        }
      },
      'a clock that goes back drains nothing, and the next unit still comes back on time': async (limiter) => {
        const key = keys()('token:a');
        assert.equal(allowedOf(await burst(limiter, 5, key, 'write', start)), 5);
        assert.deepStrictEqual(await limiter.take(key, 'write', start - 60_000), decided(false, 5, 0, 10, 2));
        assert.deepStrictEqual(await limiter.peek(key, 'write', start - 60_000), decided(false, 5, 0, 10, 2));
        assert.equal(allowedOf(await burst(limiter, 5, key, 'write', start + 2_000)), 1, 'not the whole budget: the clock that went back moved nothing');
      },
    },
    instances: {
      'several instances on one store, concurrently: exactly the limit across them, in each window': async (limiter) => {
        await withPeer(limiter, async (peer) => {
          const key = keys()('token:a');
          const both = [limiter, peer];
          const round = (n: number, nowMs: number) => Promise.all(Array.from({ length: n }, (_, i) => both[i % 2]!.take(key, 'read', nowMs)));
          assert.equal(allowedOf(await round(60, start)), 12);
          assert.equal(allowedOf(await round(40, start + 30_000)), 6, '30 s: 6 units back');
          assert.equal(allowedOf(await round(40, start + 30_000 + 60_000)), 12);
        });
      },
      "a take on one instance is seen by the other's peek and take": async (limiter) => {
        await withPeer(limiter, async (peer) => {
          const key = keys()('address:a');
          await burst(limiter, 3, key, 'failedAuth', start);
          assert.deepStrictEqual(await peer.peek(key, 'failedAuth', start), decided(true, 4, 1, 45, 0));
          assert.equal((await peer.take(key, 'failedAuth', start)).allowed, true);
          assert.deepStrictEqual(await limiter.peek(key, 'failedAuth', start), decided(false, 4, 0, 60, 15));
        });
      },
    },
    reference: {
      "every decision is the one the core's memory limiter makes, step by step (takes, peeks, time forward and back)": async (limiter) => {
        const reference = memoryRateLimiter(limits);
        const peer = options.capabilities?.openPeer ? await options.capabilities.openPeer(limiter, limits) : undefined;
        try {
          const key = keys();
          const names = ['a', 'b', 'c'].map(key);
          const classes: LimitClass[] = ['write', 'upload', 'failedAuth', 'read'];
          const next = random(21);
          const clock: ManualClock = manualClock(start);
          const steps: string[] = [];
          for (let step = 0; step < 400; step++) {
            const roll = next();
            // Mostly small steps forward, some none, a few back, a few long.
            if (roll < 0.5) clock.advance(Math.floor(next() * 1_500));
            else if (roll < 0.55) clock.set(clock.now() - Math.floor(next() * 500));
            else if (roll < 0.6) clock.advance(5_000 + Math.floor(next() * 15_000));
            const name = names[Math.floor(next() * names.length)]!;
            const limitClass = classes[Math.floor(next() * classes.length)]!;
            const op = next() < 0.75 ? 'take' : 'peek';
            const on = peer && step % 2 === 1 ? peer : limiter;
            steps.push(`${op} ${limitClass} ${name.slice(0, 1)} at +${clock.now() - start}`);
            const got = await on[op](name, limitClass, clock.now());
            const want = await reference[op](name, limitClass, clock.now());
            assert.deepStrictEqual(got, want, `step ${step}: ${steps.slice(-5).join('; ')}`);
          }
        } finally {
          await peer?.close?.();
        }
      },
    },
  });
}
