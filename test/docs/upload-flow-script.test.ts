import assert from 'node:assert/strict';
import { curlWithJson } from '../fixtures/curl.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { as, startServer, webpBytes } from '../fixtures/server.js';

const run = promisify(execFile);

test('the README’s curl walk-through (docs/examples/upload-flow.sh) takes a listing to pending', async (t) => {
  if (!(await curlWithJson(t))) return;
  const server = await startServer();
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-flow-'));
  try {
    writeFileSync(join(dir, 'pack.zip'), crypto.getRandomValues(new Uint8Array(3000)));
    writeFileSync(join(dir, 'cover.webp'), webpBytes);
    const { stdout } = await run('bash', ['docs/examples/upload-flow.sh', join(dir, 'pack.zip'), join(dir, 'cover.webp')], {
      env: { ...process.env, MARKETKIT_URL: server.url, MARKETKIT_TOKEN: server.seller.token },
    });
    assert.match(stdout, /file confirmed \(3000 bytes\)/);
    assert.match(stdout, /image confirmed \(primary: true\)/);
    assert.match(stdout, /submitted: pending/);
    const id = /created ([0-9a-f-]{36})/.exec(stdout)![1];
    const asset = (await as(server, server.seller.token).get(`/assets/${id}`)).body;
    assert.equal(asset.status, 'pending');
    assert.equal(asset.file.file_size, 3000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});
