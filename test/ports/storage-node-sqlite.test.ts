import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { runStorageSuite } from '../../conformance/index.js';

// node:sqlite exists from Node 22.5; on older Node this file says so instead of passing in silence.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major > 22 || (major === 22 && minor >= 5)) {
  runStorageSuite({
    test,
    prefix: 'node:sqlite ',
    create: () => sqliteStorage({ path: join(mkdtempSync(join(tmpdir(), 'marketkit-node-sqlite-')), 'marketkit.db'), driver: 'node-sqlite' }),
    async dispose(storage) {
      await storage.close();
      rmSync(dirname(storage.path), { recursive: true, force: true });
    },
    capabilities: { openPeer: (storage) => sqliteStorage({ path: storage.path, driver: 'node-sqlite' }) },
  });
} else {
  test('the storage suite on the node:sqlite driver', (t) => {
    t.diagnostic(`SKIPPED LOUDLY: Node ${process.versions.node} has no node:sqlite (22.5+); run this file with a newer Node`);
    t.skip('node:sqlite needs Node 22.5 or later');
  });
}
