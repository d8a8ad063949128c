/**
 * The metrics taken at the ports rather than in the code that calls them, so that the surfaces
 * stay as they are: the rate limiter (refusals by class, failed authentications, its errors) and
 * the MCP tool calls (by tool and outcome).
 */
import { isStorageUnavailable } from '../errors.js';
import type { LimitClass, RateDecision, RateLimiterPort } from '../ports/rate-limit.js';
import type { DeliveryPass } from '../webhooks/worker.js';
import type { MarketplaceMetrics } from './marketplace-metrics.js';

/** Errors the limiter threw: onError hears of them as of any unreachable store, but they are not storage errors. */
const limiterErrors = new WeakSet<object>();

/**
 * The limiter, counted. A refused take or peek is a 429 (core/pipeline/rate-limit.ts refuses on
 * every one); every take of `failedAuth` is one failed authentication (the failure budget charges
 * each failure, and nothing else, to it). A peek that answers synchronously still does. A take's
 * refusal and error are counted by rate-limit.ts where it awaits the decision anyway (`tookRefused`,
 * `limiterFailed`): no extra promise per request here.
 */
export function countedRateLimiter(limiter: RateLimiterPort, metrics: MarketplaceMetrics): RateLimiterPort {
  const failed = (error: unknown): never => {
    throw limiterFailed(metrics, error);
  };
  return {
    take(key, limitClass, nowMs) {
      if (limitClass === 'failedAuth') metrics.authFailed();
      return limiter.take(key, limitClass, nowMs);
    },
    peek(key, limitClass, nowMs) {
      let peeked;
      try {
        peeked = limiter.peek(key, limitClass, nowMs);
      } catch (error) {
        return failed(error);
      }
      // The synchronous answer (the usual one) without a closure made per call.
      if (peeked instanceof Promise) return peeked.then((decision) => (tookRefused(metrics, decision, limitClass), decision), failed);
      tookRefused(metrics, peeked, limitClass);
      return peeked;
    },
  };
}

/** Counts an error the limiter threw (onError hears of it, but not as a storage error); returns it to throw. */
export function limiterFailed(metrics: MarketplaceMetrics | undefined, error: unknown): unknown {
  if (metrics) {
    metrics.limiterError.inc();
    if (typeof error === 'object' && error !== null) limiterErrors.add(error);
  }
  return error;
}

/** A taken decision, its refusal counted (a 429 follows). */
export function tookRefused(metrics: MarketplaceMetrics | undefined, decision: RateDecision, limitClass: LimitClass): boolean {
  if (decision.allowed) return false;
  metrics?.rateLimitRefused(limitClass);
  return true;
}

/** A tools/call handler, counted: `ok`, `refused` (a tool result with isError) or `error` (thrown: a JSON-RPC error, 401 included). */
export function countedToolCalls<A extends unknown[]>(
  metrics: MarketplaceMetrics | undefined,
  call: (name: string, ...rest: A) => Promise<object>,
): (name: string, ...rest: A) => Promise<object> {
  if (!metrics) return call;
  return (name, ...rest) =>
    call(name, ...rest).then(
      (result) => {
        metrics.toolCall(name, (result as { isError?: boolean }).isError ? 'refused' : 'ok');
        return result;
      },
      (error: unknown) => {
        metrics.toolCall(name, 'error');
        throw error;
      },
    );
}

/** onError, counting each storage outage it hears of (before any once-a-minute filter: every request and job). */
export function countingStorageErrors<C>(metrics: MarketplaceMetrics | undefined, onError: (error: unknown, context: C) => void): (error: unknown, context: C) => void {
  if (!metrics) return onError;
  return (error, context) => {
    if (isStorageUnavailable(error) && !(typeof error === 'object' && error !== null && limiterErrors.has(error))) metrics.storageError.inc();
    onError(error, context);
  };
}

/** A delivery pass, counted by outcome. */
export function countDeliveries(metrics: MarketplaceMetrics, pass: DeliveryPass): DeliveryPass {
  metrics.delivered('succeeded', pass.succeeded);
  metrics.delivered('retrying', pass.retrying);
  metrics.delivered('failed', pass.failed);
  return pass;
}
