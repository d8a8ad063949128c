import type { LeasedRelease, Moderation } from './moderation.js';

export interface ReleaseSchedule {
  /** Stops the timer; a run under way finishes. */
  stop(): void;
}

/**
 * Calls `releaseDue()` every `intervalMs` (serve: every 30 s), for an embedder with no job runner
 * of its own. A failed run goes to `onError` and the next tick tries again. Given
 * `marketplace.maintenance`, each run goes ahead only on the instance that holds the storage lease
 * 'release-due' (so of N instances one releases at a time, and another takes over within two
 * minutes when it dies); given `marketplace.moderation`, every instance runs it. A listing is
 * released exactly once either way.
 */
export function releaseOnInterval(
  moderation: Pick<Moderation, 'releaseDue'> | { releaseDue(): Promise<LeasedRelease> },
  intervalMs: number,
  onError: (error: unknown) => void,
): ReleaseSchedule {
  return everyInterval(() => moderation.releaseDue(), intervalMs, onError);
}

/**
 * Runs `job` every `intervalMs` (serve: the release of scheduled listings, the upload sweep). A
 * tick while the previous run is still going is skipped rather than stacked; a failed run goes to
 * `onError` and the next tick tries again. The timer does not keep the process alive on runtimes
 * that support unref().
 */
export function everyInterval(job: () => Promise<unknown>, intervalMs: number, onError: (error: unknown) => void): ReleaseSchedule {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    job()
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  (timer as { unref?: () => void }).unref?.();
  return { stop: () => clearInterval(timer) };
}
