import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, startCliServer } from '../fixtures/cli.js';

const serviceKey = 'serve-service-key-0123456789abcdef01234567';

test('serve enables the admin surface with MARKETKIT_SERVICE_KEY, and only for that key', async (t) => {
  const server = await startCliServer(['--memory'], { MARKETKIT_SERVICE_KEY: serviceKey });
  t.after(() => server.stop('SIGINT'));
  const queue = (key: string) => fetch(`${server.info.url}/api/admin/moderation/queue`, { headers: { authorization: `Bearer ${key}` } });
  const ok = await queue(serviceKey);
  assert.equal(ok.status, 200);
  assert.deepEqual((await ok.json()).items, []);
  assert.equal((await queue(server.info.dev_seller.token!)).status, 401);
});

test('serve without MARKETKIT_SERVICE_KEY has no admin surface, and a short key stops it with the reason', async (t) => {
  const server = await startCliServer(['--memory']);
  t.after(() => server.stop('SIGINT'));
  assert.equal((await fetch(`${server.info.url}/api/admin/moderation/queue`, { headers: { authorization: `Bearer ${serviceKey}` } })).status, 404);
  const run = await runCli(['serve', '--memory', '--port', '0'], { MARKETKIT_SERVICE_KEY: 'short' });
  assert.equal(run.code, 1);
  assert.match(run.stderr, /MARKETKIT_SERVICE_KEY must be at least 32 characters \(make one with: openssl rand -hex 32\)/);
});
