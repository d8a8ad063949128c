import assert from 'node:assert/strict';
import { openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { createClient } from '../../client/index.js';
import { tempDir } from '../fixtures/cli.js';
import { startServer, validAsset } from '../fixtures/server.js';
import { runCommand } from './run-command.js';

const root = new URL('../../', import.meta.url);
const fileBytes = 160 * 1024 * 1024;

test('uploadFile from a file on Node with nodeFetch streams: the client process grows far less than the file', async (t) => {
  const dir = tempDir(t, 'marketkit-upload-memory-');
  const path = join(dir, 'big.zip');
  const fd = openSync(path, 'w');
  const chunk = new Uint8Array(1024 * 1024).fill(9);
  for (let written = 0; written < fileBytes; written += chunk.byteLength) writeSync(fd, chunk);
  closeSync(fd);
  const server = await startServer({ blobs: fsBlobs({ root: join(dir, 'blobs') }) });
  try {
    const asset = await createClient({ baseUrl: server.url, token: server.seller.token }).createAsset(validAsset());
    const run = await runCommand(process.execPath, ['--import', 'tsx', new URL('test/client/upload-memory-script.ts', root).pathname, path, asset.id], {
      MARKETKIT_URL: server.url,
      MARKETKIT_API_TOKEN: server.seller.token,
    });
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout);
    assert.equal(result.file_size, fileBytes);
    // Node's own fetch grows by the whole file here (nodejs/undici#4058); streamed, it stays within a few chunks and the GC's slack.
    assert.ok(result.growth_bytes < 64 * 1024 * 1024, `the client grew by ${Math.round(result.growth_bytes / 1e6)} MB for a ${fileBytes / 1e6} MB file`);
  } finally {
    await server.close();
  }
});
