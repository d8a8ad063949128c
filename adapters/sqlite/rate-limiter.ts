import * as v from 'valibot';
import { parseOptions } from '../../core/options.js';
import type { RateDecision, RateLimiterPort, RequestClass } from '../../core/ports/rate-limit.js';
import { defaultRateLimits, fixedWindow, type RateLimits } from '../../core/rate-limits.js';
import type { SqliteDriverName } from './drivers/driver.js';
import { openDriver } from './drivers/open-driver.js';

const OptionsSchema = v.object({
  path: v.pipe(v.string('path must be the database file, for example .marketkit/marketkit.db'), v.minLength(1)),
  driver: v.optional(v.picklist(['better-sqlite3', 'bun-sqlite', 'node-sqlite'])),
  limits: v.optional(v.record(v.picklist(['read', 'write', 'upload']), v.object({ limit: v.number(), windowSeconds: v.number() }))),
});

export interface SqliteRateLimiter extends RateLimiterPort {
  close(): void;
}

/**
 * Fixed-window rate limits counted in a SQLite file, so that several server processes on one
 * machine share one budget per caller. Each `take` is one IMMEDIATE transaction: of concurrent
 * takes past the limit, in this process or another, none is allowed.
 */
export async function sqliteRateLimiter(options: v.InferInput<typeof OptionsSchema>): Promise<SqliteRateLimiter> {
  const config = parseOptions(OptionsSchema, options, 'marketkit sqliteRateLimiter');
  const limits: RateLimits = { ...defaultRateLimits, ...config.limits };
  const db = await openDriver(config.path, config.driver as SqliteDriverName | undefined);
  db.exec(`CREATE TABLE IF NOT EXISTS rate_windows (
    key TEXT PRIMARY KEY,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL
  ) WITHOUT ROWID`);
  const read = db.prepare('SELECT window_start, count FROM rate_windows WHERE key = ?');
  const write = db.prepare('INSERT INTO rate_windows (key, window_start, count) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET window_start = excluded.window_start, count = excluded.count');
  const sweep = db.prepare('DELETE FROM rate_windows WHERE window_start < ?');
  let sweepAt = 0;
  return {
    async take(key: string, requestClass: RequestClass, nowMs: number): Promise<RateDecision> {
      const window = fixedWindow(limits, key, requestClass, nowMs);
      return db.transaction(() => {
        if (nowMs >= sweepAt) {
          // Finished windows are forgotten now and then, so the table follows the active callers.
          sweep.run(nowMs - 2 * 3600_000);
          sweepAt = nowMs + 60_000;
        }
        const row = read.get(window.id);
        const count = row && row.window_start === window.start ? Number(row.count) : 0;
        const decision = window.decide(count);
        if (decision.allowed) write.run(window.id, window.start, count + 1);
        return decision;
      });
    },
    close: () => db.close(),
  };
}
