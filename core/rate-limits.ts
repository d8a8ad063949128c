import type { RateDecision, RateLimiterPort, RequestClass } from './ports/rate-limit.js';

export interface RateLimit {
  /** Requests allowed per window. */
  limit: number;
  windowSeconds: number;
}

export type RateLimits = Record<RequestClass, RateLimit>;

export const defaultRateLimits: RateLimits = {
  read: { limit: 1200, windowSeconds: 60 },
  write: { limit: 300, windowSeconds: 60 },
  upload: { limit: 120, windowSeconds: 60 },
};

/**
 * Fixed windows counted in this process's memory: exact for one process, which is what a single
 * server or a test needs. A limiter shared by processes implements the same port over a store.
 */
export function memoryRateLimiter(limits: RateLimits = defaultRateLimits): RateLimiterPort {
  const windows = new Map<string, { start: number; count: number }>();
  let sweepAt = 0;
  return {
    async take(key: string, requestClass: RequestClass, nowMs: number): Promise<RateDecision> {
      const { limit, windowSeconds } = limits[requestClass];
      const windowMs = windowSeconds * 1000;
      const start = Math.floor(nowMs / windowMs) * windowMs;
      const id = `${requestClass}:${key}`;
      if (nowMs >= sweepAt) {
        // Forget finished windows now and then, so that memory follows the active callers only.
        for (const [k, w] of windows) if (w.start + windowMs * 2 <= nowMs) windows.delete(k);
        sweepAt = nowMs + windowMs;
      }
      let window = windows.get(id);
      if (!window || window.start !== start) {
        window = { start, count: 0 };
        windows.set(id, window);
      }
      const resetSeconds = Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000));
      if (window.count >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
      window.count++;
      return { allowed: true, limit, remaining: limit - window.count, resetSeconds };
    },
  };
}
