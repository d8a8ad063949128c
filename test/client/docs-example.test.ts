import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCommand } from './run-command.js';
import { tempDir } from '../fixtures/cli.js';
import { pngBytes, startServer } from '../fixtures/server.js';

const root = new URL('../../', import.meta.url);

test('docs/examples/client-upload.ts creates a listing from files on disk, with progress, and submits it', async (t) => {
  const server = await startServer();
  const dir = tempDir(t, 'marketkit-example-');
  writeFileSync(join(dir, 'pack.zip'), new Uint8Array(150_000).fill(3));
  writeFileSync(join(dir, 'shot.png'), pngBytes);
  try {
    const run = await runCommand(process.execPath, ['--import', 'tsx', new URL('docs/examples/client-upload.ts', root).pathname, join(dir, 'pack.zip'), join(dir, 'shot.png')], {
      MARKETKIT_URL: server.url,
      MARKETKIT_API_TOKEN: server.seller.token,
    });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.file_size, 150_000);
    assert.equal(result.status, 'pending');
    assert.match(run.stderr, /file: 150000 of 150000 bytes/);
    const detail = await server.marketplace.ports.storage.getAsset(result.id);
    assert.equal(detail?.status, 'pending');

    const refused = await runCommand(process.execPath, ['--import', 'tsx', new URL('docs/examples/client-upload.ts', root).pathname, join(dir, 'pack.zip')], {
      MARKETKIT_URL: server.url,
      MARKETKIT_API_TOKEN: (await server.account({ seller_status: 'none' })).token,
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^403 NOT_A_SELLER: /m);
  } finally {
    await server.close();
  }
});
