import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { as } from '../fixtures/server.js';

test('token list shows the account’s tokens without secrets; token revoke stops one on a running server at once', async (t) => {
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir]);
  t.after(() => server.stop('SIGKILL'));
  const created = JSON.parse((await runCli(['token', 'create', '--account', 'dev-seller', '--name', 'laptop', '--data-dir', dir, '--json'])).stdout);
  // Twice: the first use is recorded (a write), the second is served with the caller the server
  // keeps in its read cache, which the revocation from this other process must reach.
  assert.equal((await as(server.info, created.token).get('/me')).status, 200);
  assert.equal((await as(server.info, created.token).get('/me')).status, 200);

  const listed = await runCli(['token', 'list', '--account', 'dev-seller', '--data-dir', dir, '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  const tokens = JSON.parse(listed.stdout).data as { id: string; name: string }[];
  assert.deepEqual(tokens.map((token) => token.name), ['laptop', tokens[1]!.name], 'newest first');
  assert.ok(!listed.stdout.includes(created.token), 'no secret in the list');
  const text = await runCli(['token', 'list', '--account', 'dev-seller', '--data-dir', dir]);
  assert.match(text.stdout, new RegExp(`${created.id}  ${created.prefix}…  laptop`));

  const revoked = await runCli(['token', 'revoke', '--account', 'dev-seller', '--id', created.id, '--data-dir', dir]);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.match(revoked.stdout, /Revoked "laptop"/);
  assert.equal((await as(server.info, created.token).get('/me')).status, 401, 'the running server refuses it on the next request');
  assert.ok(!(await runCli(['token', 'list', '--account', 'dev-seller', '--data-dir', dir])).stdout.includes(created.id));

  const unknown = await runCli(['token', 'revoke', '--account', 'dev-seller', '--id', crypto.randomUUID(), '--data-dir', dir]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /has no token/);
  const bad = await runCli(['token', 'frobnicate']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown command "token frobnicate"/);
  const proto = await runCli(['token', '__proto__']);
  assert.equal(proto.code, 2);
});

test('an exchanged session outlives a restart of the server: the signing key is kept with the data', async (t) => {
  const dir = tempDir(t);
  const first = await startCliServer(['--data-dir', dir]);
  const session = await as(first.info, first.info.dev_seller.token).post('/auth/session');
  assert.equal(session.status, 200);
  await first.stop('SIGTERM');
  const second = await startCliServer(['--data-dir', dir]);
  t.after(() => second.stop('SIGKILL'));
  assert.equal((await as(second.info, session.body.access_token).get('/me')).status, 200);
});
