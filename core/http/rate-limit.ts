import { ApiError } from '../errors.js';
import type { Caller, Ports } from '../operations/context.js';
import type { RateDecision, RequestClass } from '../ports/rate-limit.js';

/** The RateLimit-* headers of a decision. */
export function rateHeaders(decision: RateDecision): Record<string, string> {
  return {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  };
}

/** 429 RATE_LIMITED for a refused decision, with Retry-After and the RateLimit-* headers. */
export function rateLimited(decision: RateDecision, message: string, extraHeaders: Record<string, string> = {}): ApiError {
  const retryAfter = Math.max(1, decision.retryAfterSeconds ?? decision.resetSeconds);
  return new ApiError('RATE_LIMITED', `${message}; retry in ${retryAfter} s.`, {
    headers: { ...extraHeaders, ...rateHeaders(decision), 'retry-after': String(retryAfter) },
  });
}

/**
 * Counts one call of `requestClass` against the caller (per token, or per account for a session)
 * and returns the RateLimit-* headers every authenticated response carries; 429 RATE_LIMITED with
 * Retry-After past the limit. REST and MCP both charge through here, so one caller has one budget.
 */
export async function takeRate(
  ports: Pick<Ports, 'rateLimiter' | 'clock'>,
  caller: Caller,
  requestClass: RequestClass,
): Promise<Record<string, string>> {
  const key = caller.tokenId ? `token:${caller.tokenId}` : `account:${caller.account.id}`;
  const decision = await ports.rateLimiter.take(key, requestClass, ports.clock.now());
  if (!decision.allowed) throw rateLimited(decision, 'Too many requests');
  return rateHeaders(decision);
}
