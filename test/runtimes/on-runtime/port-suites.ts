/**
 * The storage port suite on the runtime's own SQLite driver (bun:sqlite on Bun, node:sqlite on
 * Deno) and the blob suite on filesystem blobs, registered with node:test, which `bun test` and
 * `deno test` both run. Started by test/runtimes/port-suites.test.ts; not a test file of Node's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { sqliteStorage } from '../../../adapters/sqlite/index.js';
import { fsBlobs } from '../../../adapters/fs/index.js';
import { runBlobSuite, runStorageSuite } from '../../../conformance/ports/index.js';

runStorageSuite({
  test,
  prefix: 'runtime sqlite ',
  create: async () => {
    const storage = await sqliteStorage({ path: join(mkdtempSync(join(tmpdir(), 'marketkit-runtime-sqlite-')), 'marketkit.db') });
    return storage;
  },
  async dispose(storage) {
    await storage.close();
    rmSync(dirname(storage.path), { recursive: true, force: true });
  },
  capabilities: { openPeer: (storage) => sqliteStorage({ path: storage.path }) },
});

runBlobSuite({
  test,
  prefix: 'fs ',
  create: () => fsBlobs({ root: mkdtempSync(join(tmpdir(), 'marketkit-runtime-blobs-')) }),
  dispose: (blobs) => rmSync(blobs.root, { recursive: true, force: true }),
});

test('runtime sqlite: the driver is the runtime’s own', async () => {
  const storage = await sqliteStorage({ path: join(mkdtempSync(join(tmpdir(), 'marketkit-runtime-driver-')), 'marketkit.db') });
  try {
    const expected = (globalThis as { Bun?: unknown }).Bun !== undefined ? 'bun-sqlite' : (globalThis as { Deno?: unknown }).Deno !== undefined ? 'node-sqlite' : 'better-sqlite3';
    if (storage.driver !== expected) throw new Error(`driver ${storage.driver}, expected ${expected}`);
  } finally {
    await storage.close();
    rmSync(dirname(storage.path), { recursive: true, force: true });
  }
});
