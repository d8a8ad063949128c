import type { Ports, Settings } from './context.js';

export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  checks: { storage: 'ok' | 'error'; blobs: 'ok' | 'error' };
}

const timeoutMs = 2000;

async function probe(check: () => Promise<void>, limitMs = timeoutMs): Promise<'ok' | 'error'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), limitMs);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch {
    return 'error';
  } finally {
    clearTimeout(timer);
  }
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
