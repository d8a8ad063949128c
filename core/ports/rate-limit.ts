export type RequestClass = 'read' | 'write' | 'upload';

/**
 * What a budget is for: an authenticated caller's requests of one class (keyed by token or
 * account), a client address's failed authentications (`failedAuth`: bad bearers, bad JWTs, wrong
 * service keys) and its unauthenticated MCP calls (`mcpUnauthenticated`), or the admin surface's
 * calls (`admin`, keyed by service key).
 */
export type LimitClass = RequestClass | 'failedAuth' | 'mcpUnauthenticated' | 'admin';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** How many more would be allowed now (after this one, for a take). */
  remaining: number;
  /** Seconds until the whole budget is back, if nothing more is taken. */
  resetSeconds: number;
  /** Seconds until one more would be allowed (at least 1 when not allowed; 0 when allowed). */
  retryAfterSeconds?: number;
}

/**
 * Counts requests per key and class in sliding windows: `limit` per `windowSeconds`, the budget
 * coming back continuously (a GCRA: no window boundary gives it back whole).
 */
export interface RateLimiterPort {
  /**
   * Counts one request if the budget allows it. MUST be atomic per key: of concurrent calls past
   * the limit, none is allowed.
   */
  take(key: string, limitClass: LimitClass, nowMs: number): Promise<RateDecision>;
  /**
   * The decision `take` would make now, counting nothing. It is asked on every authenticated
   * request (is this client address over its failure budget?), so it must be cheap: no write, and
   * an answer in this process where the adapter can give one (return a value, not a promise).
   */
  peek(key: string, limitClass: LimitClass, nowMs: number): RateDecision | Promise<RateDecision>;
}
