/**
 * haproxy's view of the instances over a soak: every change of a backend's state (UP, DOWN, ...)
 * with the health check's status and duration at that moment, read from its runtime API. It says
 * whether a 503 "No instance can answer right now" came from a kill or from health checks that
 * failed under load.
 */
import type { Haproxy } from '../test/fixtures/haproxy.js';

export interface HealthChange {
  /** ms since the run began */
  at: number;
  instance: string;
  status: string;
  /** haproxy's check_status (L7OK, L7STS: a 503 from /readyz, L7TOUT: no answer within the check's time, L4CON: refused) */
  check: string;
  checkMs: number;
}

export function watchHealth(haproxy: Haproxy, now: () => number, everyMs = 250): { changes: HealthChange[]; stop(): void } {
  const changes: HealthChange[] = [];
  const last = new Map<string, string>();
  let polling = false;
  const timer = setInterval(() => {
    if (polling) return;
    polling = true;
    haproxy
      .stats()
      .then((rows) => {
        for (const [instance, row] of Object.entries(rows)) {
          const status = row.status ?? '?';
          const before = last.get(instance);
          last.set(instance, status);
          // The first look is a change only when an instance is not UP (the run starts with every one UP).
          if (before === status || (before === undefined && status === 'UP')) continue;
          changes.push({ at: now(), instance, status, check: row.check_status ?? '', checkMs: Number(row.check_duration) || 0 });
        }
      })
      // The runtime API busy or haproxy gone: the next poll tries again.
      .catch(() => {})
      .finally(() => (polling = false));
  }, everyMs);
  return { changes, stop: () => clearInterval(timer) };
}

/** One answer of an instance's own `/readyz` that was not 200 (asked directly, not through haproxy). */
export interface ReadinessMiss {
  at: number;
  instance: string;
  status: number;
  ms: number;
  /** Each store's state as the instance judged it ('ok', 'slow', 'error'), or the error of a request that got no answer. */
  checks: Record<string, string> | string;
}

export interface ReadinessWatch {
  polls: number;
  /** How often each store's check said something else than 'ok', 200 or not: `blobs: { slow: 12, error: 0 }`. */
  byCheck: Record<string, Record<string, number>>;
  /** The first misses (a few hundred), in order. */
  misses: ReadinessMiss[];
  missCount: number;
  /** s3rver asked directly (an unsigned GET, answered 403 at once when it is not busy): its answers slower than a second. */
  blobStoreSlow: { at: number; ms: number }[];
}

const keptMisses = 300;

/**
 * Every instance's `/readyz`, asked directly every `everyMs`: when haproxy says L7STS (the
 * instance answered non-200), this says which store the instance found slow or failing. A refused
 * connection (a killed instance) is not a miss: the chaos windows account for it.
 */
export function watchReadiness(instances: { name: string; port: number }[], blobStore: string, now: () => number, everyMs = 500): { result: ReadinessWatch; stop(): void } {
  const result: ReadinessWatch = { polls: 0, byCheck: {}, misses: [], missCount: 0, blobStoreSlow: [] };
  let timingBlobs = false;
  const timeBlobs = async () => {
    const began = Date.now();
    // Any answer will do (403 without a signature): how long s3rver takes to give one is the point.
    await fetch(blobStore, { signal: AbortSignal.timeout(30_000) }).then((answer) => answer.arrayBuffer(), () => null);
    const ms = Date.now() - began;
    if (ms > 1000 && result.blobStoreSlow.length < keptMisses) result.blobStoreSlow.push({ at: now(), ms });
  };
  const busy = new Set<string>();
  const ask = async (instance: { name: string; port: number }) => {
    const began = Date.now();
    let status = 0;
    let checks: Record<string, string> | string;
    try {
      const answer = await fetch(`http://127.0.0.1:${instance.port}/readyz`, { signal: AbortSignal.timeout(5000) });
      status = answer.status;
      checks = ((await answer.json()) as { checks?: Record<string, string> }).checks ?? {};
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      if (cause === 'ECONNREFUSED') return;
      checks = `${(error as Error).name}: ${cause ?? (error as Error).message}`;
    }
    result.polls++;
    if (typeof checks === 'object') {
      for (const [name, state] of Object.entries(checks)) {
        if (state === 'ok') continue;
        const counts = (result.byCheck[name] ??= {});
        counts[state] = (counts[state] ?? 0) + 1;
      }
    }
    if (status === 200) return;
    result.missCount++;
    if (result.misses.length < keptMisses) result.misses.push({ at: now(), instance: instance.name, status, ms: Date.now() - began, checks });
  };
  const timer = setInterval(() => {
    if (!timingBlobs) {
      timingBlobs = true;
      void timeBlobs().finally(() => (timingBlobs = false));
    }
    for (const instance of instances) {
      if (busy.has(instance.name)) continue;
      busy.add(instance.name);
      void ask(instance).finally(() => busy.delete(instance.name));
    }
  }, everyMs);
  return { result, stop: () => clearInterval(timer) };
}
