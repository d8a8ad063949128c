import * as v from 'valibot';
import { parseOptions } from '../../core/options.js';
import type { LimitClass, RateDecision, RateLimiterPort } from '../../core/ports/rate-limit.js';
import { limitClasses, slidingLimits, type RateLimits } from '../../core/rate-limits.js';
import type { SqliteDriverName } from './drivers/driver.js';
import { openDriver } from './drivers/open-driver.js';
import { whenFileFree } from './dialect.js';

const limitSchema = v.object({ limit: v.number(), windowSeconds: v.number() });

const OptionsSchema = v.object({
  path: v.pipe(v.string('path must be the database file, for example .marketkit/marketkit.db'), v.minLength(1)),
  driver: v.optional(v.picklist(['better-sqlite3', 'bun-sqlite', 'node-sqlite'])),
  limits: v.optional(v.partial(v.object(Object.fromEntries(limitClasses.map((c) => [c, limitSchema])) as Record<LimitClass, typeof limitSchema>))),
});

export interface SqliteRateLimiter extends RateLimiterPort {
  close(): void;
}

/**
 * Sliding-window rate limits (GCRA, as core/rate-limits.ts computes them) kept in a SQLite file,
 * so that several server processes on one machine share one budget per key. Each `take` is one
 * IMMEDIATE transaction: of concurrent takes past the limit, in this process or another, none is
 * allowed. `peek` is one read by primary key, outside any transaction: no write, no lock that
 * holds up a writer (WAL), and the other processes' takes are seen.
 */
export async function sqliteRateLimiter(options: v.InferInput<typeof OptionsSchema>): Promise<SqliteRateLimiter> {
  const config = parseOptions(OptionsSchema, options, 'marketkit sqliteRateLimiter');
  const byClass = slidingLimits(config.limits as Partial<RateLimits> | undefined);
  const db = await openDriver(config.path, config.driver as SqliteDriverName | undefined);
  // Another process's take waits for the lock rather than failing (bun:sqlite and node:sqlite start
  // with no busy timeout). WAL: a peek reads without locking out writers and sees every committed
  // take. NORMAL: a commit does not wait for the disk; what a power loss can cost is the last
  // moments' counts, never the file.
  db.exec('PRAGMA busy_timeout = 5000');
  db.prepare('PRAGMA journal_mode = WAL').get();
  db.exec('PRAGMA synchronous = NORMAL');
  // One row per key with something in use: the units in use and when they were counted. (Files
  // of earlier versions also hold rate_windows, their fixed windows; it is no longer read.)
  db.exec(`CREATE TABLE IF NOT EXISTS rate_buckets (
    class TEXT NOT NULL,
    key TEXT NOT NULL,
    level REAL NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (class, key)
  ) WITHOUT ROWID`);
  const read = db.prepare('SELECT level, at FROM rate_buckets WHERE class = ? AND key = ?');
  const write = db.prepare('INSERT INTO rate_buckets (class, key, level, at) VALUES (?, ?, ?, ?) ON CONFLICT (class, key) DO UPDATE SET level = excluded.level, at = excluded.at');
  // Drained rows (level - (now - at) * rate <= 0) are forgotten now and then, class by class.
  const sweep = db.prepare('DELETE FROM rate_buckets WHERE class = ? AND level <= (? - at) * ?');
  const longestWindowMs = Math.max(...Object.values(byClass).map((l) => l.windowMs));
  let sweepAt = 0;

  const bucketOf = (limitClass: LimitClass, key: string) => {
    const row = read.get(limitClass, key);
    return row ? { level: Number(row.level), at: Number(row.at) } : undefined;
  };
  const decision = ({ allowed, limit, remaining, resetSeconds, retryAfterSeconds }: RateDecision): RateDecision => ({ allowed, limit, remaining, resetSeconds, retryAfterSeconds });

  return {
    async take(key: string, limitClass: LimitClass, nowMs: number): Promise<RateDecision> {
      const limit = byClass[limitClass];
      // After any open transaction of the storage on this file (one file for both is allowed).
      return whenFileFree(config.path, () =>
        db.transaction(() => {
          if (nowMs >= sweepAt) {
            for (const c of limitClasses) sweep.run(c, nowMs, byClass[c].rate);
            sweepAt = nowMs + longestWindowMs;
          }
          const bucket = bucketOf(limitClass, key);
          const decided = limit.decide(limit.levelAt(bucket, nowMs), true);
          // Another process's clock may be a little ahead: `at` never goes back.
          if (decided.allowed) write.run(limitClass, key, decided.level, Math.max(nowMs, bucket?.at ?? nowMs));
          return decision(decided);
        }),
      );
    },
    peek(key: string, limitClass: LimitClass, nowMs: number): RateDecision {
      const limit = byClass[limitClass];
      const bucket = bucketOf(limitClass, key);
      return bucket ? decision(limit.decide(limit.levelAt(bucket, nowMs), false)) : limit.untouched;
    },
    close: () => db.close(),
  };
}
