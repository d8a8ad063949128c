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
