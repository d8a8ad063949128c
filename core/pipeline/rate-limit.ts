import { ApiError } from '../errors.js';
import { limiterFailed, tookRefused } from '../metrics/counted-ports.js';
import type { MarketplaceMetrics } from '../metrics/marketplace-metrics.js';
import type { Caller, Ports } from '../operations/context.js';
import type { LimitClass, RateDecision, RateLimiterPort, RequestClass } from '../ports/rate-limit.js';

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
  ports: Pick<Ports, 'rateLimiter' | 'clock' | 'metrics'>,
  caller: Caller,
  requestClass: RequestClass,
): Promise<Record<string, string>> {
  const key = caller.tokenId ? `token:${caller.tokenId}` : `account:${caller.account.id}`;
  let decision: RateDecision;
  try {
    decision = await ports.rateLimiter.take(key, requestClass, ports.clock.now());
  } catch (error) {
    throw limiterFailed(ports.metrics, error);
  }
  if (tookRefused(ports.metrics, decision, requestClass)) throw rateLimited(decision, 'Too many requests');
  return rateHeaders(decision);
}

/** The key of a client address's budgets; clients a binding cannot tell apart share one. */
export function clientKey(request: { clientAddress?: string | undefined }): string {
  return request.clientAddress || 'unknown';
}

const failedAuthMessage = 'Too many failed authentications from this address';

/** An address's credential checks now running, and those waiting for one of them to end. */
interface Gate {
  running: number;
  waiting: { resolve(release: Admission): void; reject(error: unknown): void }[];
  pumping: boolean;
}

export type Admission = () => void;
const noRelease: Admission = () => {};

/**
 * A client address's budget of failed authentications (docs/auth.md, "Rate limits"). Before a
 * credential is checked, `admit` peeks at the address's budget (no write: the limiter answers in
 * process where it can) and refuses with 429 when it is spent, so that nothing is learnt about the
 * credential; `fail` charges a failure after the check, only then. A correct credential is never
 * charged: an address is held back by its failures, not by its requests.
 *
 * Checks are counted while they run: at most as many run at once from one address as the budget
 * has failures left, and the others wait for one to end (in this process), so that a wave of
 * concurrent guesses cannot all be checked before the first of them is charged. A known-good
 * token (the read cache's) is not a check and never waits.
 */
export class FailureBudget {
  private readonly gates = new Map<string, Gate>();

  constructor(
    private readonly limiter: RateLimiterPort,
    private readonly clock: { now(): number },
    private readonly limitClass: LimitClass = 'failedAuth',
    /** Where a take's refusal or error is counted (core/metrics/counted-ports.ts). */
    private readonly metrics?: MarketplaceMetrics,
  ) {}

  /**
   * 429 when the address may not try a credential now; else what to call once the check is over
   * (it lets the next waiting check in). `check` false: nothing is checked (a known-good token),
   * only the budget is peeked at. Synchronous unless the limiter's peek is not, or the check waits.
   */
  admit(address: string, nowMs: number, check: boolean): Admission | Promise<Admission> {
    const peeked = this.limiter.peek(address, this.limitClass, nowMs);
    return peeked instanceof Promise ? peeked.then((budget) => this.admitWith(address, budget, check)) : this.admitWith(address, peeked, check);
  }

  private admitWith(address: string, budget: RateDecision, check: boolean): Admission | Promise<Admission> {
    if (!budget.allowed) throw rateLimited(budget, failedAuthMessage);
    if (!check) return noRelease;
    let gate = this.gates.get(address);
    if (!gate) this.gates.set(address, (gate = { running: 0, waiting: [], pumping: false }));
    if (gate.waiting.length === 0 && gate.running < budget.remaining) {
      gate.running++;
      return this.releaser(address, gate);
    }
    return new Promise<Admission>((resolve, reject) => gate.waiting.push({ resolve, reject }));
  }

  private releaser(address: string, gate: Gate): Admission {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      gate.running--;
      if (gate.waiting.length > 0) void this.pump(address, gate);
      else if (gate.running === 0) this.gates.delete(address);
    };
  }

  /** Lets waiting checks in while the budget has room for them; refuses them once it is spent. */
  private async pump(address: string, gate: Gate): Promise<void> {
    if (gate.pumping) return;
    gate.pumping = true;
    try {
      while (gate.waiting.length > 0) {
        const peeked = this.limiter.peek(address, this.limitClass, this.clock.now());
        const budget = peeked instanceof Promise ? await peeked : peeked;
        if (!budget.allowed) {
          gate.waiting.shift()!.reject(rateLimited(budget, failedAuthMessage));
        } else if (gate.running < budget.remaining) {
          gate.running++;
          gate.waiting.shift()!.resolve(this.releaser(address, gate));
        } else {
          break; // the next release pumps again
        }
      }
    } catch (error) {
      for (const waiter of gate.waiting.splice(0)) waiter.reject(error);
    } finally {
      gate.pumping = false;
      if (gate.running === 0 && gate.waiting.length === 0) this.gates.delete(address);
    }
  }

  /** Charges one failure to the address: throws `error` (the 401) when the budget took it, else 429. */
  async fail(address: string, nowMs: number, error: ApiError): Promise<never> {
    let decision: RateDecision;
    try {
      decision = await this.limiter.take(address, this.limitClass, nowMs);
    } catch (failure) {
      throw limiterFailed(this.metrics, failure);
    }
    if (tookRefused(this.metrics, decision, this.limitClass)) throw rateLimited(decision, failedAuthMessage);
    throw error;
  }
}

const budgets = new WeakMap<RateLimiterPort, FailureBudget>();

/** The failure budget over a marketplace's limiter (one per limiter, so that its gates are shared). */
export function failureBudget(ports: Pick<Ports, 'rateLimiter' | 'clock' | 'metrics'>): FailureBudget {
  let budget = budgets.get(ports.rateLimiter);
  if (!budget) budgets.set(ports.rateLimiter, (budget = new FailureBudget(ports.rateLimiter, ports.clock, 'failedAuth', ports.metrics)));
  return budget;
}

/**
 * Counts one call of `limitClass` against `key` (a client address's unauthenticated MCP calls, the
 * admin surface's calls); 429 past the limit. Returns the RateLimit-* headers.
 */
export async function takeLimit(ports: Pick<Ports, 'rateLimiter' | 'clock' | 'metrics'>, key: string, limitClass: LimitClass, message: string): Promise<Record<string, string>> {
  let decision: RateDecision;
  try {
    decision = await ports.rateLimiter.take(key, limitClass, ports.clock.now());
  } catch (error) {
    throw limiterFailed(ports.metrics, error);
  }
  if (tookRefused(ports.metrics, decision, limitClass)) throw rateLimited(decision, message);
  return rateHeaders(decision);
}
