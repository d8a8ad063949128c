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

/** Where the job lines go: stderr as text, unless serve's --log-format json sets a writer of JSON lines. */
let say: (message: string, error?: unknown) => void = (message, error) => (error === undefined ? console.error(message) : console.error(message, error));

/** --log-format json: each job line as one object (level error, msg, the error's message and cause). */
export function jobLinesAsJson(out: (line: string) => void): void {
  say = (message, error) => {
    const cause = error instanceof Error && error.cause !== undefined ? { cause: messageOf(error.cause) } : {};
    out(JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: message.replace(/^marketkit: /, ''), ...(error === undefined ? {} : { error: messageOf(error), ...cause }) }));
  };
}

/**
 * Reports a failure of a timer job on stderr: a storage that cannot be reached as one line a
 * minute at most (every run fails the same way until it is back), anything else in full.
 */
export function jobFailure(what: string): (error: unknown) => void {
  const outage = oncePerMinute((error) => say(`marketkit: ${what} failed: the storage cannot be reached (${messageOf(error)}); the next run tries again (said once a minute at most)`));
  return (error) => (isStorageUnavailable(error) ? outage(error) : say(`marketkit: ${what} failed:`, error));
}

/** A database connection the server ended while idle (a restart): the pool opens a new one on the next query. */
export const connectionLost = oncePerMinute((error) => say(`marketkit: a database connection was lost (${messageOf(error)}); the next query opens a new one (said once a minute at most)`));
