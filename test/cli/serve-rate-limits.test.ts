import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startCliServer, tempDir } from '../fixtures/cli.js';
import { as } from '../fixtures/server.js';

const guess = (n: number) => `smcp_${String(n).padStart(32, '0')}AAAAAA`;

test('two serve processes on one data directory share a client address’s failed-authentication budget (--failed-auth-limit)', async (t) => {
  const dir = tempDir(t);
  const first = await startCliServer(['--data-dir', dir, '--failed-auth-limit', '3']);
  t.after(() => first.stop('SIGKILL'));
  const second = await startCliServer(['--data-dir', dir], { MARKETKIT_FAILED_AUTH_LIMIT: '3' });
  t.after(() => second.stop('SIGKILL'));
  const token = first.info.dev_seller.token!;
  assert.equal((await as(first.info, token).get('/me')).status, 200);
  assert.equal((await as(first.info, guess(1)).get('/me')).status, 401);
  assert.equal((await as(second.info, guess(2)).get('/me')).status, 401);
  assert.equal((await as(first.info, token).get('/me')).status, 200, 'the right token under the budget');
  assert.equal((await as(second.info, guess(3)).get('/me')).status, 401);
  const limited = await as(first.info, guess(4)).get('/me');
  assert.equal(limited.status, 429, 'the other process’s failures count here');
  assert.equal(limited.headers.get('retry-after'), '20');
  assert.equal((await as(second.info, token).get('/me')).status, 429, 'and the right token waits too');
});
