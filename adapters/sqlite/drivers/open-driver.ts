import { SqliteDriverUnavailable, type SqliteDriver, type SqliteDriverName } from './driver.js';

const openers: Record<SqliteDriverName, () => Promise<(path: string) => Promise<SqliteDriver>>> = {
  'better-sqlite3': async () => (await import('./better-sqlite3.js')).openBetterSqlite3,
  'bun-sqlite': async () => (await import('./bun-sqlite.js')).openBunSqlite,
  'node-sqlite': async () => (await import('./node-sqlite.js')).openNodeSqlite,
};

/** The runtime this code runs on, as far as the choice of driver goes. */
function runtime(): 'bun' | 'deno' | 'node' {
  const global = globalThis as { Bun?: unknown; Deno?: unknown };
  if (global.Bun !== undefined) return 'bun';
  if (global.Deno !== undefined) return 'deno';
  return 'node';
}

/**
 * Opens the named driver, or the runtime's own: bun:sqlite on Bun, node:sqlite on Deno, and on
 * Node better-sqlite3 when it is installed, else node:sqlite where the Node version has it.
 * Only the chosen driver's module is ever loaded.
 */
export async function openDriver(path: string, name?: SqliteDriverName): Promise<SqliteDriver> {
  if (name) return (await openers[name]())(path);
  const where = runtime();
  if (where === 'bun') return (await openers['bun-sqlite']())(path);
  if (where === 'deno') return (await openers['node-sqlite']())(path);
  try {
    return await (await openers['better-sqlite3']())(path);
  } catch (error) {
    if (!(error instanceof SqliteDriverUnavailable)) throw error;
    try {
      return await (await openers['node-sqlite']())(path);
    } catch (fallback) {
      // Neither is here: the better-sqlite3 message says what to install.
      throw fallback instanceof SqliteDriverUnavailable ? error : fallback;
    }
  }
}
