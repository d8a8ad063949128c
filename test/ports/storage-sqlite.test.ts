import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { runStorageSuite } from '../../conformance/index.js';

runStorageSuite({
  test,
  create: () => sqliteStorage({ path: join(mkdtempSync(join(tmpdir(), 'marketkit-sqlite-')), 'marketkit.db') }),
  async dispose(storage) {
    await storage.close();
    rmSync(dirname(storage.path), { recursive: true, force: true });
  },
  capabilities: {
    // A second connection to the same file, as a second server process would open it.
    openPeer: (storage) => sqliteStorage({ path: storage.path }),
  },
});
