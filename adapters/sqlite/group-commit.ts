import type { SqlSession } from '../sql/session.js';
import type { SqliteStatement } from './drivers/driver.js';
import type { WalSync } from './wal-sync.js';

/**
 * Group commit: the transactions that arrive while one is open, within the same turn of the event
 * loop, run one after another inside it, each in a savepoint of its own, and commit together: one
 * COMMIT (and so one WAL fsync under `synchronous=FULL`) for all of them. A write's promise
 * resolves only once that COMMIT has returned, so nothing is acknowledged that a crash can still
 * lose (test/cli/group-commit-crash.test.ts kills a server mid-load and finds every acknowledged
 * create after the restart). One that throws is rolled back to its savepoint and rejected at once:
 * the others are unaffected, as they would be in transactions of their own. When SQLite ends the
 * whole transaction itself (an I/O error, a full disk), every member of the group is rejected,
 * none acknowledged.
 *
 * The group is open from its first member until the turn ends (setImmediate, after the I/O the
 * turn delivered), so a lone write waits for nothing but the rest of its turn.
 *
 * With a `walSync` (wal-sync.ts: a file database at `synchronous=FULL`), the group commits at
 * `synchronous=NORMAL` and its members are acknowledged once the WAL's fdatasync, begun after the
 * COMMIT, has completed off the event loop; the file is free for the next group as soon as COMMIT
 * returns. A failed sync refuses every member of the groups it was to cover.
 */
export interface CommitGroup {
  /** Runs `fn` in the group; resolves with its result once the group has committed. */
  run<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T>;
  /** Settled when the group has committed or rolled back: the file is free again. */
  readonly settled: Promise<void>;
  /** True once it takes no more members (it is committing). */
  readonly closed: boolean;
}

export function openCommitGroup(statement: (sql: string) => SqliteStatement, session: SqlSession, walSync: WalSync | null = null): CommitGroup {
  // The safety level cannot change inside a transaction: set before BEGIN, set back after its end.
  if (walSync) statement('PRAGMA synchronous = NORMAL').run();
  try {
    statement('BEGIN IMMEDIATE').run();
  } catch (error) {
    if (walSync) statement('PRAGMA synchronous = FULL').run();
    throw error;
  }
  const acknowledgements: (() => void)[] = [];
  const refusals: ((error: unknown) => void)[] = [];
  let chain: Promise<void> = Promise.resolve();
  let pending = 0;
  let closed = false;
  let broken: unknown = null;
  let endGroup!: () => void;
  const settled = new Promise<void>((resolve) => (endGroup = resolve));

  const end = () => {
    closed = true;
    let failure = broken;
    if (!failure) {
      try {
        statement('COMMIT').run();
      } catch (error) {
        failure = error;
      }
    }
    if (failure) {
      try {
        statement('ROLLBACK').run();
      } catch {
        // A failed COMMIT may have ended the transaction already; the group is refused with `failure` either way.
      }
    }
    if (walSync) statement('PRAGMA synchronous = FULL').run();
    if (failure) {
      for (const refuse of refusals) refuse(failure);
    } else if (walSync) {
      walSync.afterCommit().then(
        () => {
          for (const acknowledge of acknowledgements) acknowledge();
        },
        (error: unknown) => {
          for (const refuse of refusals) refuse(error);
        },
      );
    } else {
      for (const acknowledge of acknowledgements) acknowledge();
    }
    endGroup();
  };
  // At the end of the turn; members still running (awaiting between statements) are waited for,
  // and any that come meanwhile go to the next group.
  const endOfTurn = () => {
    closed = true;
    if (pending === 0) end();
    else void chain.then(end);
  };
  setImmediate(endOfTurn);

  return {
    get closed() {
      return closed;
    },
    settled,
    run<T>(fn: (tx: SqlSession) => Promise<T>): Promise<T> {
      pending++;
      return new Promise<T>((resolve, reject) => {
        chain = chain.then(async () => {
          try {
            if (broken) throw broken;
            statement('SAVEPOINT member').run();
            let result: T;
            try {
              result = await fn(session);
            } catch (error) {
              try {
                statement('ROLLBACK TO member').run();
                statement('RELEASE member').run();
              } catch (undo) {
                // SQLite ended the transaction itself: nothing of the group is kept.
                broken = undo;
              }
              throw error;
            }
            statement('RELEASE member').run();
            acknowledgements.push(() => resolve(result));
            refusals.push(reject);
          } catch (error) {
            reject(error);
          } finally {
            pending--;
          }
        });
      });
    },
  };
}
