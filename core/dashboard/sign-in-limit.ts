/**
 * The dashboard's sign-in attempts held to the client address's budget of failed authentications,
 * the one the API's bearers and the admin key use (core/pipeline/rate-limit.ts, FailureBudget;
 * docs/auth.md, "Rate limits"): a sign-in link's POST that finds no live link and a passkey that does
 * not verify are each a failure. Past the budget, every attempt from the address is refused with
 * 429 and Retry-After before anything is looked at; a sign-in that works is never charged.
 */
import type { ApiError } from '../errors.js';
import type { Ports } from '../operations/context.js';
import { clientKey, failureBudget } from '../pipeline/rate-limit.js';
import type { CoreRequest } from '../pipeline/request.js';

type LimiterPorts = Pick<Ports, 'rateLimiter' | 'clock' | 'metrics'>;

/** A sign-in attempt from this address: `attempt` runs when the budget allows one (429 otherwise); `fail` charges its failure and throws `error` (or 429). */
export async function signInAttempt<T>(ports: LimiterPorts, request: CoreRequest, attempt: (fail: (error: ApiError) => Promise<never>) => Promise<T>): Promise<T> {
  const address = clientKey(request);
  const budget = failureBudget(ports);
  const admitted = budget.admit(address, ports.clock.now(), true);
  const release = admitted instanceof Promise ? await admitted : admitted;
  try {
    return await attempt((error) => budget.fail(address, ports.clock.now(), error));
  } finally {
    release();
  }
}
