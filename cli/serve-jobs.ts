import { isStorageUnavailable } from '../core/errors.js';

// How `marketkit serve` reports what fails outside a request: its timer jobs and its database's
// connections.

/** `report`, called at most once a minute; calls in between are dropped. */
function oncePerMinute(report: (error: unknown) => void): (error: unknown) => void {
  let quietUntil = 0;
  return (error) => {
    const now = Date.now();
    if (now < quietUntil) return;
    quietUntil = now + 60_000;
    report(error);
  };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Reports a failure of a timer job on stderr: a storage that cannot be reached as one line a
 * minute at most (every run fails the same way until it is back), anything else in full.
 */
export function jobFailure(what: string): (error: unknown) => void {
  const outage = oncePerMinute((error) => console.error(`marketkit: ${what} failed: the storage cannot be reached (${messageOf(error)}); the next run tries again (said once a minute at most)`));
  return (error) => (isStorageUnavailable(error) ? outage(error) : console.error(`marketkit: ${what} failed:`, error));
}

/** A database connection the server ended while idle (a restart): the pool opens a new one on the next query. */
export const connectionLost = oncePerMinute((error) => console.error(`marketkit: a database connection was lost (${messageOf(error)}); the next query opens a new one (said once a minute at most)`));
