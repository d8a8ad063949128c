export type RequestClass = 'read' | 'write' | 'upload';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Counts requests per caller. `take` MUST be atomic per key: of concurrent calls past the limit,
 * none is allowed.
 */
export interface RateLimiterPort {
  take(key: string, requestClass: RequestClass, nowMs: number): Promise<RateDecision>;
}
