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

/** The fixed window `nowMs` falls in for a caller and class: its key, start, length and limit. */
export function fixedWindow(limits: RateLimits, key: string, requestClass: RequestClass, nowMs: number): FixedWindow {
  const { limit, windowSeconds } = limits[requestClass];
  return new FixedWindow(`${requestClass}:${key}`, limit, windowSeconds * 1000, nowMs);
}

class FixedWindow {
  readonly start: number;
  readonly resetSeconds: number;
  constructor(
    readonly id: string,
    readonly limit: number,
    readonly windowMs: number,
    nowMs: number,
  ) {
    this.start = Math.floor(nowMs / windowMs) * windowMs;
    this.resetSeconds = Math.max(1, Math.ceil((this.start + windowMs - nowMs) / 1000));
  }

  /** The decision once the count in this window, before this request, is known. */
  decide(countBefore: number): RateDecision {
    const { limit, resetSeconds } = this;
    return countBefore >= limit
      ? { allowed: false, limit, remaining: 0, resetSeconds }
      : { allowed: true, limit, remaining: limit - countBefore - 1, resetSeconds };
  }
}

/**
 * Fixed windows counted in this process's memory: exact for one process, which is what a single
 * server or a test needs. A limiter shared by processes implements the same port over a store.
 */
export function memoryRateLimiter(limits: RateLimits = defaultRateLimits): RateLimiterPort {
  const windows = new Map<string, { start: number; count: number }>();
  let sweepAt = 0;
  return {
    async take(key: string, requestClass: RequestClass, nowMs: number): Promise<RateDecision> {
      const current = fixedWindow(limits, key, requestClass, nowMs);
      const { id, start, windowMs } = current;
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
      const decision = current.decide(window.count);
      if (decision.allowed) window.count++;
      return decision;
    },
  };
}
