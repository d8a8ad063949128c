/**
 * When the client tries again. A 429 is retried for every method, after the server's Retry-After:
 * the rate limiter refuses before anything runs. A 5xx or a failed connection is retried for
 * idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS) and for a write sent with an idempotency
 * key (the server runs it once and answers a retry with the first answer, docs/rest.md "Safe
 * retries"), as is 409 IDEMPOTENCY_KEY_IN_USE (the first attempt is still running). A write
 * without a key is not: a POST that timed out may have created the listing, and a second one
 * would create another.
 */

export interface RetryOptions {
  /** Attempts after the first; 0 turns retrying off. Default 3. */
  retries?: number;
  /** The first backoff delay; each next one doubles, with jitter. Default 250 ms. */
  baseDelayMs?: number;
  /** The longest backoff delay. Default 8 s. */
  maxDelayMs?: number;
  /** A Retry-After longer than this is not waited for: the 429 is thrown. Default 60 s. */
  maxRetryAfterMs?: number;
}

export interface RetryPolicy {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  maxRetryAfterMs: number;
}

export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  const given = options === false ? { retries: 0 } : (options ?? {});
  return {
    retries: given.retries ?? 3,
    baseDelayMs: given.baseDelayMs ?? 250,
    maxDelayMs: given.maxDelayMs ?? 8_000,
    maxRetryAfterMs: given.maxRetryAfterMs ?? 60_000,
  };
}

const idempotentMethods = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

export function isIdempotent(method: string): boolean {
  return idempotentMethods.has(method.toUpperCase());
}

/** What happened to one attempt, as far as retrying goes. */
export type Outcome = { kind: 'status'; status: number; retryAfterSeconds: number | null; code?: string } | { kind: 'network' };

/**
 * The delay before the next attempt, or null to give up. `attempt` counts from 0 (the first
 * retry). `replayable` is false when the request body was a stream that cannot be sent again;
 * `keyed` is true when the request carried an idempotency key.
 */
export function nextDelay(policy: RetryPolicy, outcome: Outcome, method: string, attempt: number, replayable = true, keyed = false): number | null {
  if (attempt >= policy.retries || !replayable) return null;
  const backoff = backoffDelay(policy, attempt);
  const safe = keyed || isIdempotent(method);
  if (outcome.kind === 'network') return safe ? backoff : null;
  const afterRetryAfter = () => {
    if (outcome.retryAfterSeconds === null) return backoff;
    const wait = outcome.retryAfterSeconds * 1000;
    return wait > policy.maxRetryAfterMs ? null : wait;
  };
  if (outcome.status === 429) return afterRetryAfter();
  if (outcome.status === 409 && keyed && outcome.code === 'IDEMPOTENCY_KEY_IN_USE') return afterRetryAfter();
  if (outcome.status >= 500 && safe) return backoff;
  return null;
}

/** The backoff before retry number `attempt` (from 0): doubling from the base, capped, with jitter (50 to 100 %). */
export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) * (0.5 + Math.random() / 2);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
