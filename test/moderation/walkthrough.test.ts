import assert from 'node:assert/strict';
import { curlWithJson } from '../fixtures/curl.js';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { startServer } from '../fixtures/server.js';

const run = promisify(execFile);
const serviceKey = 'walkthrough-service-key-0123456789abcdef0123';

test('the curl walk-through of docs/moderation.md (docs/examples/moderation-flow.sh) runs both paths', async (t) => {
  if (!(await curlWithJson(t))) return;
  const server = await startServer({ serviceKey });
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-moderation-'));
  try {
    writeFileSync(join(dir, 'pack.zip'), crypto.getRandomValues(new Uint8Array(500)));
    const { stdout } = await run('bash', ['docs/examples/moderation-flow.sh', join(dir, 'pack.zip')], {
      env: { ...process.env, MARKETKIT_URL: server.url, MARKETKIT_TOKEN: server.seller.token, MARKETKIT_SERVICE_KEY: serviceKey },
    });
    assert.equal(
      stdout,
      [
        'one: draft -> pending',
        'one: in the queue: true',
        'one: approve -> published',
        'one: archive -> archived',
        'two: draft -> pending',
        'two: request-changes -> changes_requested',
        'two: the seller reads: Add a preview image.',
        'two: resubmit -> pending',
        'two: reject -> rejected',
        '',
      ].join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.close();
  }
});
