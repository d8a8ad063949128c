import { ApiError } from '../errors.js';
import type { Caller, Ports } from '../operations/context.js';
import type { RequestClass } from '../ports/rate-limit.js';

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
  const headers = {
    'ratelimit-limit': String(decision.limit),
    'ratelimit-remaining': String(decision.remaining),
    'ratelimit-reset': String(decision.resetSeconds),
  };
  if (!decision.allowed) {
    throw new ApiError('RATE_LIMITED', `Too many requests; retry in ${decision.resetSeconds} s.`, {
      headers: { ...headers, 'retry-after': String(decision.resetSeconds) },
    });
  }
  return headers;
}
