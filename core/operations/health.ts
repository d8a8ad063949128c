import type { ClockPort } from '../ports/clock.js';
import type { Ports, Settings } from './context.js';

export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  checks: { storage: 'ok' | 'error'; blobs: 'ok' | 'error' };
}

const timeoutMs = 2000;

/** A check's outcome: answered, failed, or not answered within its limit (late: the store may only be slow). */
type CheckState = 'ok' | 'error' | 'slow';

/** A probe that has not answered yet: when it began by its clock, and how its answer is given (once). */
interface OutstandingProbe {
  began: number;
  readonly limitMs: number;
  readonly resolve: (state: CheckState) => void;
}

/**
 * The deadlines of the probes timed by one clock (the marketplace's clock port), watched by one
 * interval that runs only while some probe is out (as the bindings' body watchdog, bindings/limits.ts),
 * not a timer per probe: a health_check is two probes that usually answer within a microtask, and
 * a timer set and cleared around each would be work on every call for nothing (docs/performance.md,
 * "MCP health_check"). A probe that does not answer fails between its limit and its limit plus one
 * tick of the clock's time: a test's clock moved past the limit fails it at the next tick. A clock
 * set back starts the probe's wait again from the new time, so a step of the clock cannot hold a
 * probe for the step's length.
 */
class ProbeWatch {
  readonly #outstanding = new Set<OutstandingProbe>();
  #watchdog: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly clock: ClockPort) {}

  /** 'ok' when `check` resolves within `limitMs`, 'error' when it rejects or throws, 'slow' when it is late. The check runs every time. */
  probe(check: () => Promise<void>, limitMs: number): Promise<CheckState> {
    return new Promise<CheckState>((resolve) => {
      const waiting: OutstandingProbe = { began: this.clock.now(), limitMs, resolve };
      this.#outstanding.add(waiting);
      this.#watchdog ??= setInterval(this.#expireLate, tickMs);
      try {
        check().then(
          () => this.#settle(waiting, 'ok'),
          () => this.#settle(waiting, 'error'),
        );
      } catch {
        // A check that throws before it returns a promise failed as one that rejects: the probe says 'error'.
        this.#settle(waiting, 'error');
      }
    });
  }

  #settle(probe: OutstandingProbe, state: CheckState): void {
    if (this.#outstanding.delete(probe)) probe.resolve(state);
  }

  readonly #expireLate = (): void => {
    const now = this.clock.now();
    for (const probe of this.#outstanding) {
      if (now < probe.began) probe.began = now;
      else if (now - probe.began >= probe.limitMs) this.#settle(probe, 'slow');
    }
    if (this.#outstanding.size === 0) {
      clearInterval(this.#watchdog);
      this.#watchdog = undefined;
    }
  };
}

const tickMs = 100;

/** Each clock's watch: the marketplaces of one clock (the system clock, most often) share one interval. */
const watches = new WeakMap<ClockPort, ProbeWatch>();

function watchOf(clock: ClockPort): ProbeWatch {
  let watch = watches.get(clock);
  if (!watch) watches.set(clock, (watch = new ProbeWatch(clock)));
  return watch;
}

/** Whether the stores answer. Says which check failed and nothing about why. */
export async function checkHealth(ports: Pick<Ports, 'storage' | 'blobs' | 'clock'>, settings: Pick<Settings, 'version'>): Promise<HealthReport> {
  const watch = watchOf(ports.clock);
  // The seed's health knows two states: a store that did not answer in time is an error.
  const answered = (state: CheckState) => (state === 'ok' ? 'ok' : 'error');
  const [storage, blobs] = (await Promise.all([watch.probe(() => ports.storage.ping(), timeoutMs), watch.probe(() => ports.blobs.ping(), timeoutMs)])).map(answered);
  return { status: storage === 'ok' && blobs === 'ok' ? 'ok' : 'degraded', version: settings.version, checks: { storage: storage!, blobs: blobs! } };
}

export interface Readiness {
  ready: boolean;
  /** Each store's answer: 'slow' when it did not answer within a second (readiness then judges how long it has been slow: probes.ts). */
  checks: { storage: CheckState; blobs: CheckState; limiter: CheckState };
}

/** A readiness probe is asked every few hundred milliseconds by a balancer: a store slower than this counts as down. */
const readinessTimeoutMs = 1000;

/**
 * Whether this instance can serve now: its storage, its blob store and its rate limiter each answer
 * within a second. The limiter is asked a peek (it counts nothing): a limiter on PostgreSQL or Redis
 * asks its store, and one that fails open (onStoreDown: 'open') answers, as it would a request.
 */
export async function checkReadiness(ports: Pick<Ports, 'storage' | 'blobs' | 'rateLimiter' | 'clock'>): Promise<Readiness> {
  const watch = watchOf(ports.clock);
  const limiterCheck = async () => void (await ports.rateLimiter.peek('readiness', 'admin', ports.clock.now()));
  const [storage, blobs, limiter] = await Promise.all([
    watch.probe(() => ports.storage.ping(), readinessTimeoutMs),
    watch.probe(() => ports.blobs.ping(), readinessTimeoutMs),
    watch.probe(limiterCheck, readinessTimeoutMs),
  ]);
  return { ready: storage === 'ok' && blobs === 'ok' && limiter === 'ok', checks: { storage, blobs, limiter } };
}
