/**
 * When a failed delivery is tried again (docs/webhooks.md, "Retries and disabling"): ten retries
 * after these delays, each varied by ±10 % so that deliveries that failed together do not come
 * back together; 11 attempts over about 2.9 days.
 */
export const retryDelaysMs: readonly number[] = [10_000, 60_000, 5 * 60_000, 30 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000, 24 * 3_600_000, 24 * 3_600_000];

/** Attempts a delivery gets: the first, then one per delay. */
export const maxDeliveryAttempts = retryDelaysMs.length + 1;

/** How far each delay is varied, either way. */
export const retryJitter = 0.1;

/**
 * The delay before the next attempt of a delivery whose attempt number `attemptsMade` (1 for the
 * first) just failed, jittered by `random` in [0, 1); null when that was the last attempt.
 */
export function retryDelayMs(attemptsMade: number, random: number): number | null {
  const base = retryDelaysMs[attemptsMade - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - retryJitter + 2 * retryJitter * random));
}
