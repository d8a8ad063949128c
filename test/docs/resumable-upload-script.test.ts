import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { curlWithJson } from '../fixtures/curl.js';
import { as, startServer } from '../fixtures/server.js';

const run = promisify(execFile);

test('docs/uploads.md’s curl walk-through (docs/examples/resumable-upload.sh): chunks with checksums, confirm with sha256, termination', async (t) => {
  if (!(await curlWithJson(t, 'the resumable curl walk-through'))) return;
  const server = await startServer();
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-tus-'));
  try {
    const bytes = randomBytes(2.5 * 1024 * 1024);
    writeFileSync(join(dir, 'pack.zip'), bytes);
    const { stdout } = await run('bash', ['docs/examples/resumable-upload.sh', join(dir, 'pack.zip')], {
      env: { ...process.env, MARKETKIT_URL: server.url, MARKETKIT_TOKEN: server.seller.token },
    });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    assert.match(stdout, new RegExp(`uploaded: offset ${bytes.byteLength} of ${bytes.byteLength}`));
    assert.match(stdout, new RegExp(`confirmed with sha256 ${sha256}`));
    assert.match(stdout, /terminated: HEAD answers 404/);
    const [asset] = (await as(server, server.seller.token).get('/assets')).body.data;
    assert.equal(asset.file?.sha256 ?? (await as(server, server.seller.token).get(`/assets/${asset.id}`)).body.file.sha256, sha256);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});
