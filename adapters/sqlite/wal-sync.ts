import { closeSync, fdatasync, openSync } from 'node:fs';

/**
 * The WAL file's sync off the event loop, for group commit (group-commit.ts). Under
 * `synchronous=FULL` SQLite syncs the WAL inside COMMIT, and every driver is synchronous, so the
 * event loop would stand still for each group's fsync, most of a write's time in the driver, with
 * the reads that arrive meanwhile waiting behind it (docs/performance.md, "SQLite POST: the WAL's
 * sync off the event loop"). So a group commits with the connection at `synchronous=NORMAL`
 * (frames written to the file, not synced) and its members are acknowledged once an `fdatasync`
 * of the WAL file, begun after that COMMIT returned, has completed on libuv's thread pool: the
 * same guarantee as FULL (nothing acknowledged that power loss can take), while the event loop
 * serves the next group.
 *
 * Why NORMAL plus this sync is FULL's durability: in WAL mode NORMAL still syncs the WAL before
 * each checkpoint and its header when the file is reused after one (SQLite's documentation of
 * `PRAGMA synchronous`); only the commit's own sync is left out, and that is this one. A crash
 * before it completes can lose the group's frames, which recovery then ignores (checksums), and
 * none of its members was acknowledged. The WAL file keeps its inode while this process holds a
 * connection (SQLite removes it only when the last connection closes), so one descriptor serves.
 */
export interface WalSync {
  /** Resolves once an fdatasync of the WAL begun after this call has completed; rejects with its error. */
  afterCommit(): Promise<void>;
  /**
   * Closes the descriptor once the syncs out or waiting to begin are done: closed before, a waiting
   * one would sync a closed descriptor (EBADF, its groups refused) or another file given its number.
   */
  close(): Promise<void>;
}

/** A WalSync for the database at `path`, or null when its WAL file cannot be opened (then COMMIT keeps syncing). */
export function openWalSync(path: string): WalSync | null {
  let fd: number;
  try {
    fd = openSync(`${path}-wal`, 'r');
  } catch {
    // No WAL file to sync: COMMIT keeps syncing itself, as the caller is told.
    return null;
  }
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  const start = (): Promise<void> => {
    const sync = new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
    running = sync;
    const done = () => {
      if (running === sync) running = null;
    };
    sync.then(done, done);
    return sync;
  };
  return {
    // Commits made while a sync runs may have written after it began: they wait for the next one,
    // which all of them share (one fdatasync for every group committed meanwhile).
    afterCommit() {
      if (!running) return start();
      // Only the running sync's end is awaited: its error goes to the commits that waited on it.
      queued ??= running.then(
        () => {},
        () => {},
      ).then(() => {
        queued = null;
        return start();
      });
      return queued;
    },
    async close() {
      // Only the syncs' end is awaited before the descriptor closes: their errors go to the commits that waited on them.
      while (queued ?? running) await (queued ?? running)!.catch(() => {});
      closeSync(fd);
    },
  };
}
