import { closeSync, openSync, readSync } from 'node:fs';

/**
 * Whether anything was committed to a WAL-mode database since last asked, in one `pread` of the
 * WAL-index header in its `-shm` file instead of a statement: the read cache asks it on every
 * request (core/read-cache.ts), and a statement's read transaction (its lock and unlock of a read
 * mark, two `fcntl` calls, and the VM) cost about 3 µs in isolation and four times that under load
 * (docs/performance.md, "SQLite: the change check from the WAL index").
 *
 * The header is SQLite's documented file format (https://www.sqlite.org/walformat.html, "The
 * WAL-Index Header"): its first 48 bytes hold `iChange`, which every committed transaction
 * increments, the last valid frame, the page count and the WAL's salts. Any commit, by any
 * connection of any process, rewrites them before it returns; a checkpoint that restarts the WAL
 * changes the salts (a spare move, which only empties the cache). The writer updates the second
 * copy first and this first copy last, so once a commit has returned, a read of the first copy
 * sees it. The `-shm` file is mapped shared by every connection, so a `pread` of it reads the
 * same pages (one page cache). It keeps its inode while this process holds a connection: one
 * descriptor serves.
 *
 * A read that catches a commit halfway sees bytes that differ from the last ones: a spare move,
 * never a missed one. Own writes move it too, at their COMMIT; a rolled-back one does not (it
 * changed nothing).
 */
export interface WalIndexWatch {
  /** True when the header changed since the last call (and on the first call). */
  moved(): boolean;
  close(): void;
}

const headerBytes = 48;

/** A watch over the database at `path`, or null when it has no `-shm` file to read (not WAL, `:memory:`, or heap memory). */
export function watchWalIndex(path: string): WalIndexWatch | null {
  if (path === ':memory:' || path === '') return null;
  let fd: number;
  try {
    fd = openSync(`${path}-shm`, 'r');
  } catch {
    // No -shm file to read (not WAL yet, or none): the caller checks for changes the slower way.
    return null;
  }
  const now = Buffer.alloc(headerBytes);
  const seen = Buffer.alloc(headerBytes);
  let first = true;
  let closed = false;
  return {
    moved() {
      // A short read (a file not yet grown to a page) is a move: the statement path decides then.
      if (closed || readSync(fd, now, 0, headerBytes, 0) !== headerBytes) return true;
      if (!first && now.equals(seen)) return false;
      first = false;
      now.copy(seen);
      return true;
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}
