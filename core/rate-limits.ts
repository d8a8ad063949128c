import type { LimitClass, RateDecision, RateLimiterPort } from './ports/rate-limit.js';

export interface RateLimit {
  /** Requests allowed per window; also the most one burst gets. */
  limit: number;
  windowSeconds: number;
}

export type RateLimits = Record<LimitClass, RateLimit>;

export const limitClasses: readonly LimitClass[] = ['read', 'write', 'upload', 'failedAuth', 'mcpUnauthenticated', 'admin'];

export const defaultRateLimits: RateLimits = {
  read: { limit: 1200, windowSeconds: 60 },
  write: { limit: 300, windowSeconds: 60 },
  upload: { limit: 120, windowSeconds: 60 },
  /** Failed authentications (401s with a credential, wrong service keys) per client address. */
  failedAuth: { limit: 20, windowSeconds: 60 },
  /** MCP calls made without authenticating (initialize, ping, tools/list, ...) per client address. */
  mcpUnauthenticated: { limit: 120, windowSeconds: 60 },
  /** Calls to the admin surface, per service key. */
  admin: { limit: 600, windowSeconds: 60 },
};

/** What a key has used of its budget: `level` units in use as of `at` (ms); it drains at limit/window. */
export interface Bucket {
  level: number;
  at: number;
}

/** Slack for floating-point sums: a level within it of a whole number is that number. */
const epsilon = 1e-6;

/**
 * One limit as a sliding window (GCRA in its "leaky bucket" form): each request adds one unit,
 * the units drain continuously at `limit` per window, and a request is allowed while the units in
 * use stay within `limit`. So no instant gives the budget back whole (a fixed window's boundary
 * does): over any stretch of t seconds a key gets at most limit × (1 + t / window), and a burst
 * gets exactly `limit`, wherever it falls. A key's state is two numbers; a key with nothing in use
 * needs no state at all, so a missing bucket is a full budget.
 */
export class SlidingLimit {
  /** Units drained per ms. */
  readonly rate: number;
  readonly windowMs: number;
  /** The answer for a key with nothing in use (shared: never changed). */
  readonly untouched: RateDecision;

  constructor(readonly limit: number, windowSeconds: number) {
    this.windowMs = windowSeconds * 1000;
    this.rate = limit / this.windowMs;
    this.untouched = Object.freeze({ allowed: true, limit, remaining: limit, resetSeconds: 0, retryAfterSeconds: 0 });
  }

  /** The units in use at `nowMs` (a clock that went back drains nothing). */
  levelAt(bucket: Bucket | undefined, nowMs: number): number {
    if (!bucket) return 0;
    const level = bucket.level - Math.max(0, nowMs - bucket.at) * this.rate;
    return level > epsilon ? level : 0;
  }

  /**
   * The decision for one more request at `level` units in use; `level` is what will be in use
   * after it (one more when allowed and `take`). Its headers say what is true at that moment:
   * remaining is what could be taken now, reset when the budget is whole again, retry-after when
   * the next one will be allowed.
   */
  decide(level: number, take: boolean): RateDecision & { level: number } {
    const { limit } = this;
    const allowed = level + 1 <= limit + epsilon;
    const after = allowed && take ? level + 1 : level;
    const remaining = Math.max(0, Math.floor(limit - after + epsilon));
    const resetSeconds = after > 0 ? Math.max(1, Math.ceil(after / this.rate / 1000 - epsilon)) : 0;
    const retryAfterSeconds = allowed ? 0 : Math.max(1, Math.ceil((level - (limit - 1)) / this.rate / 1000 - epsilon));
    return { allowed, limit, remaining, resetSeconds, retryAfterSeconds, level: after };
  }

  /** Whether a bucket has drained by `nowMs` (it can be forgotten). */
  drained(bucket: Bucket, nowMs: number): boolean {
    return this.levelAt(bucket, nowMs) === 0;
  }
}

/**
 * What a limiter on a shared store (PostgreSQL, Redis) does when that store fails: 'closed' throws
 * `unavailable` (a StorageUnavailableError: the core answers 503 with Retry-After); 'open' lets the
 * request through uncounted and tells `onError` at most once a minute while it lasts, by the time
 * the call was given (the marketplace's clock; a clock set back tells again).
 */
export function whenStoreDown(policy: 'closed' | 'open', onError?: (error: Error) => void): (unavailable: Error, limit: SlidingLimit, nowMs: number) => RateDecision {
  let reportedAt = -Infinity;
  return (unavailable, limit, nowMs) => {
    if (policy === 'closed') throw unavailable;
    if (nowMs - reportedAt >= 60_000 || nowMs < reportedAt) {
      reportedAt = nowMs;
      onError?.(unavailable);
    }
    return limit.untouched;
  };
}

/** Every class's limit, from options over the defaults. */
export function slidingLimits(limits: Partial<RateLimits> = {}): Record<LimitClass, SlidingLimit> {
  const all = { ...defaultRateLimits, ...limits };
  return Object.fromEntries(limitClasses.map((c) => [c, new SlidingLimit(all[c].limit, all[c].windowSeconds)])) as Record<LimitClass, SlidingLimit>;
}

/** The decision without the bucket level. */
function decision({ allowed, limit, remaining, resetSeconds, retryAfterSeconds }: RateDecision): RateDecision {
  return { allowed, limit, remaining, resetSeconds, retryAfterSeconds };
}

/**
 * Sliding windows counted in this process's memory: exact for one process, which is what a single
 * server or a test needs. A limiter shared by processes implements the same port over a store
 * (adapters/sqlite: sqliteRateLimiter). `peek` answers from a map, without a promise.
 */
export function memoryRateLimiter(limits: Partial<RateLimits> = defaultRateLimits): RateLimiterPort {
  const byClass = slidingLimits(limits);
  const buckets = new Map<LimitClass, Map<string, Bucket>>(limitClasses.map((c) => [c, new Map()]));
  const longestWindowMs = Math.max(...Object.values(byClass).map((l) => l.windowMs));
  let sweepAt = 0;

  function sweep(nowMs: number): void {
    // Forget drained buckets now and then, so that memory follows the active keys only.
    for (const [limitClass, keys] of buckets) {
      const limit = byClass[limitClass];
      for (const [key, bucket] of keys) if (limit.drained(bucket, nowMs)) keys.delete(key);
    }
    sweepAt = nowMs + longestWindowMs;
  }

  return {
    async take(key, limitClass, nowMs) {
      if (nowMs >= sweepAt) sweep(nowMs);
      const limit = byClass[limitClass];
      const keys = buckets.get(limitClass)!;
      const bucket = keys.get(key);
      const decided = limit.decide(limit.levelAt(bucket, nowMs), true);
      if (decided.allowed) {
        if (bucket) {
          bucket.level = decided.level;
          bucket.at = Math.max(bucket.at, nowMs);
        } else {
          keys.set(key, { level: decided.level, at: nowMs });
        }
      }
      return decision(decided);
    },
    peek(key, limitClass, nowMs) {
      const limit = byClass[limitClass];
      const bucket = buckets.get(limitClass)!.get(key);
      return bucket ? decision(limit.decide(limit.levelAt(bucket, nowMs), false)) : limit.untouched;
    },
  };
}
