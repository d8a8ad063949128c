/**
 * The read cache's version on PostgreSQL (core/ports/storage.ts, changeVersion), in one of two modes.
 *
 * Strict (the default): every request asks the database, one statement that sums the sixteen rows
 * of `marketkit_changes`, which every write bumps in its own transaction (migration 6). A write
 * acknowledged by any instance is in the answer of a question sent after it, and the records read
 * after that answer are at least as new as it. Concurrent requests share a question: one is on the
 * wire at a time, and the requests that arrive meanwhile wait for the next one, which is sent when
 * it returns. A question goes at the end of a turn of the event loop (the one in which its first
 * request asked, or the one in which the question before it returned), so that the requests read
 * in that turn share it. None of them shares a question sent before it arrived, so none misses a
 * write that was acknowledged before it arrived.
 *
 * `maxStalenessMs`: no question per request. The version is a number of this instance's, moved by
 * its own writes (when each resolves), by other instances' notifications (LISTEN/NOTIFY, sent after
 * their commit), by a listening connection lost or made again (notifications may have been missed),
 * and by a poll of `marketkit_changes` every `maxStalenessMs / 2` that finds the sum changed. A
 * request is answered from what the cache keeps only while the last poll that answered was sent
 * less than `maxStalenessMs` ago; otherwise every request moves the version (nothing kept is
 * vouched for). So a write committed at t, by anyone, is seen by every request that starts after
 * t + maxStalenessMs, whatever the notifications did; usually within milliseconds.
 */
import { randomUUID } from 'node:crypto';
import type { ChangeVersions } from '../../core/ports/change-version.js';
import type { PgDriver } from './driver.js';
import { statements } from './queries.js';

export interface ChangeVersion {
  changeVersion(): number | Promise<number>;
  /** Both sums of one answer: the callers' version moves with accounts and tokens only. */
  changeVersions(): ChangeVersions | Promise<ChangeVersions>;
  /** A write of this instance settled (maxStalenessMs mode moves its version and tells the others). */
  wrote?(): void;
  close(): Promise<void>;
}

const channel = 'marketkit_changes';
const noop = () => {};

async function readVersions(db: PgDriver): Promise<ChangeVersions> {
  const { rows } = await db.query(statements.changeVersion);
  return { all: Number(rows[0]?.version ?? 0), callers: Number(rows[0]?.callers ?? 0) };
}

const readVersion = async (db: PgDriver): Promise<number> => (await readVersions(db)).all;
const all = (versions: ChangeVersions) => versions.all;

/** Resolves at the end of the current turn of the event loop, once the turn's I/O is handled. */
const afterThisTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One question per request, shared only among requests that arrived before it was sent. */
export function strictChangeVersion(db: PgDriver): ChangeVersion {
  /** The question on the wire, if one is. */
  let sent: Promise<ChangeVersions> | undefined;
  /** The next question, not sent yet: anyone may wait for it. */
  let next: Promise<ChangeVersions> | undefined;
  const ask = () => {
    const asked = readVersions(db);
    sent = asked;
    const answered = () => {
      if (sent === asked) sent = undefined;
    };
    asked.then(answered, answered);
    return asked;
  };
  const changeVersions = () => {
    if (next) return next;
    // Sent at the end of a turn, so that the requests read in that turn share it: this turn, or,
    // with a question on the wire, the turn in which that one returns.
    const out = sent;
    // Only the question's end is awaited: its answer or error goes to whoever asked it.
    next = (out ? out.then(noop, noop).then(afterThisTurn) : afterThisTurn()).then(() => {
      next = undefined;
      return ask();
    });
    return next;
  };
  return {
    changeVersion: () => changeVersions().then(all),
    changeVersions,
    close: async () => {},
  };
}

export interface StalenessSettings {
  maxStalenessMs: number;
  /** Told when a poll or the listening connection fails (the database is down, say). */
  onError?: ((error: Error) => void) | undefined;
}

/** A version of this instance's, kept no staler than `maxStalenessMs` by notifications and a poll. */
export async function boundedChangeVersion(db: PgDriver, { maxStalenessMs, onError }: StalenessSettings): Promise<ChangeVersion> {
  // The channel is the database's, shared by every schema's instances: the payload says whose.
  const ours = `${db.schema}/`;
  const instance = `${ours}${randomUUID()}`;
  let version = 1;
  /** When the last poll that answered was sent (performance.now()); what is kept is vouched for until then. */
  let confirmedAt = -Infinity;
  let lastSum: number | undefined;
  let polling = false;
  let closed = false;

  const poll = async () => {
    if (polling || closed) return;
    polling = true;
    const sentAt = performance.now();
    try {
      const sum = await readVersion(db);
      if (sum !== lastSum) {
        lastSum = sum;
        version++;
      }
      confirmedAt = Math.max(confirmedAt, sentAt);
    } catch (error) {
      // Whatever was missed is missed: the next answer counts as a change.
      lastSum = undefined;
      version++;
      if (!closed) onError?.(error as Error);
    } finally {
      polling = false;
    }
  };
  const timer = setInterval(poll, Math.max(1, Math.floor(maxStalenessMs / 2)));
  timer.unref?.();

  let listening: { close(): Promise<void> } | undefined;
  let retryMs = 100;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const listen = async () => {
    retry = undefined;
    if (closed) return;
    try {
      const connection = await db.listen(channel, {
        notify: (from) => {
          if (from !== instance && from.startsWith(ours)) version++;
        },
        lost: (error) => {
          listening = undefined;
          // Notifications sent until it is back are lost: everything may have changed.
          version++;
          onError?.(error);
          reconnect();
        },
      });
      if (closed) return void connection.close();
      listening = connection;
      retryMs = 100;
      // What was sent while nobody listened is lost.
      version++;
    } catch (error) {
      if (!closed) onError?.(error as Error);
      reconnect();
    }
  };
  const reconnect = () => {
    if (closed || retry) return;
    retry = setTimeout(listen, retryMs);
    retry.unref?.();
    retryMs = Math.min(retryMs * 2, 5_000);
  };

  await Promise.all([poll(), listen()]);

  const changeVersion = () => {
    // The poll is late (the database is slow or down): nothing kept is vouched for.
    if (performance.now() - confirmedAt > maxStalenessMs) return ++version;
    return version;
  };
  return {
    changeVersion,
    // One number for both: a notification does not say what changed.
    changeVersions: () => {
      const now = changeVersion();
      return { all: now, callers: now };
    },
    wrote() {
      version++;
      // After the commit, so that a listener that hears it reads the write; not awaited by the writer.
      db.query(statements.notifyChange, [instance]).catch(noop);
    },
    async close() {
      closed = true;
      clearInterval(timer);
      if (retry) clearTimeout(retry);
      await listening?.close();
    },
  };
}
