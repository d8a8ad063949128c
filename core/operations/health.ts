import type { Ports, Settings } from './context.js';

export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  checks: { storage: 'ok' | 'error'; blobs: 'ok' | 'error' };
}

const timeoutMs = 2000;

type CheckState = 'ok' | 'error';

/** A probe that has not answered yet: when it counts as failed, and how its answer is given (once). */
class OutstandingProbe {
  constructor(
    readonly deadline: number,
    private readonly resolve: (state: CheckState) => void,
  ) {}

  settle(state: CheckState): void {
    outstanding.delete(this);
    this.resolve(state);
  }
}

/**
 * The probes' deadlines, watched by one interval that runs only while some probe is out (as the
 * bindings' body watchdog, bindings/limits.ts), not a timer per probe: a health_check is two probes
 * that usually answer within a microtask, and a timer set and cleared around each would be work on
 * every call for nothing (docs/performance.md, "MCP health_check"). A probe that does not answer
 * fails between its limit and its limit plus one tick.
 */
const outstanding = new Set<OutstandingProbe>();
const tickMs = 100;
let watchdog: ReturnType<typeof setInterval> | undefined;

function expireLateProbes(): void {
  const now = Date.now();
  for (const probe of outstanding) if (probe.deadline <= now) probe.settle('error');
  if (outstanding.size === 0) {
    clearInterval(watchdog);
    watchdog = undefined;
  }
}

/** 'ok' when `check` resolves within `limitMs`, 'error' when it rejects, throws or is late. The check runs every time. */
function probe(check: () => Promise<void>, limitMs = timeoutMs): Promise<CheckState> {
  return new Promise<CheckState>((resolve) => {
    const waiting = new OutstandingProbe(Date.now() + limitMs, resolve);
    outstanding.add(waiting);
    watchdog ??= setInterval(expireLateProbes, tickMs);
    try {
      check().then(
        () => waiting.settle('ok'),
        () => waiting.settle('error'),
      );
    } catch {
      waiting.settle('error');
    }
  });
}

/** Whether the stores answer. Says which check failed and nothing about why. */
export async function checkHealth(ports: Pick<Ports, 'storage' | 'blobs'>, settings: Pick<Settings, 'version'>): Promise<HealthReport> {
  const [storage, blobs] = await Promise.all([probe(() => ports.storage.ping()), probe(() => ports.blobs.ping())]);
  return { status: storage === 'ok' && blobs === 'ok' ? 'ok' : 'degraded', version: settings.version, checks: { storage, blobs } };
}

export interface Readiness {
  ready: boolean;
  checks: { storage: 'ok' | 'error'; blobs: 'ok' | 'error'; limiter: 'ok' | 'error' };
}

/** A readiness probe is asked every few hundred milliseconds by a balancer: a store slower than this counts as down. */
const readinessTimeoutMs = 1000;

/**
 * Whether this instance can serve now: its storage, its blob store and its rate limiter each answer
 * within a second. The limiter is asked a peek (it counts nothing): a limiter on PostgreSQL or Redis
 * asks its store, and one that fails open (onStoreDown: 'open') answers, as it would a request.
 */
export async function checkReadiness(ports: Pick<Ports, 'storage' | 'blobs' | 'rateLimiter' | 'clock'>): Promise<Readiness> {
  const limiterCheck = async () => void (await ports.rateLimiter.peek('readiness', 'admin', ports.clock.now()));
  const [storage, blobs, limiter] = await Promise.all([
    probe(() => ports.storage.ping(), readinessTimeoutMs),
    probe(() => ports.blobs.ping(), readinessTimeoutMs),
    probe(limiterCheck, readinessTimeoutMs),
  ]);
  return { ready: storage === 'ok' && blobs === 'ok' && limiter === 'ok', checks: { storage, blobs, limiter } };
}
