/**
 * The typed client's resume store in a JSON file (docs/uploads.md, "Clients that resume"): the
 * upload URL of each large upload in progress, so that a process started again goes on from the
 * server's offset. Written whole to a temporary file and renamed, so a kill never leaves half a file;
 * an unreadable file counts as empty (the uploads in it start again from zero, nothing worse).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ResumeEntry, ResumeStore } from '../../../client/resumable.js';

/**
 * Where uploads in progress are remembered by default: `$XDG_STATE_HOME/marketkit/uploads.json`,
 * else `~/.local/state/marketkit/uploads.json` (`%LOCALAPPDATA%\marketkit` on Windows).
 */
export function defaultResumeFile(env: Record<string, string | undefined> = process.env): string {
  const base = env.XDG_STATE_HOME || (process.platform === 'win32' && env.LOCALAPPDATA) || join(homedir(), '.local', 'state');
  return join(base, 'marketkit', 'uploads.json');
}

export function fileResumeStore(path: string = defaultResumeFile()): ResumeStore {
  // One change at a time within this process: each reads the file, changes one entry, writes it back.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    // The caller of `serial` gets `next`'s error; the queue only waits for it to settle.
    queue = next.catch(() => {});
    return next;
  };

  async function load(): Promise<Record<string, ResumeEntry>> {
    try {
      const parsed = JSON.parse(await readFile(path, 'utf8'));
      return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
    } catch {
      // No file yet, or one that is not JSON: nothing to resume, and the next write starts it afresh.
      return {};
    }
  }

  async function save(entries: Record<string, ResumeEntry>): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    // Entries expired a day ago go whenever the file is written (the slack: this clock is not the server's).
    const cutoff = Date.now() - 86_400_000;
    const kept = Object.fromEntries(Object.entries(entries).filter(([, entry]) => !(Date.parse(entry.expires_at) < cutoff)));
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(kept, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, path);
  }

  return {
    get: (key) => serial(async () => (await load())[key]),
    set: (key, entry) =>
      serial(async () => {
        const entries = await load();
        entries[key] = entry;
        await save(entries);
      }),
    delete: (key) =>
      serial(async () => {
        const entries = await load();
        if (!(key in entries)) return;
        delete entries[key];
        await save(entries);
      }),
  };
}
