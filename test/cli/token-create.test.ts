import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { as } from '../fixtures/server.js';

test('token create makes a token that a running server accepts at once, with the scopes asked for', async (t) => {
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir]);
  t.after(() => server.stop('SIGKILL'));
  const run = await runCli(['token', 'create', '--account', 'dev-seller', '--name', 'ci', '--scope', 'profile:read', '--scope', 'assets:read', '--expires-in', '30', '--data-dir', dir, '--json']);
  assert.equal(run.code, 0, run.stderr);
  const created = JSON.parse(run.stdout);
  assert.match(created.token, /^smcp_/);
  assert.equal(created.username, 'dev-seller');
  assert.equal(created.account_id, server.info.dev_seller.id);
  assert.equal(created.name, 'ci');
  assert.deepStrictEqual(created.scopes, ['profile:read', 'assets:read']);
  const days = (Date.parse(created.expires_at) - Date.now()) / 86_400_000;
  assert.ok(days > 29.9 && days <= 30, `expires in 30 days, not ${days}`);

  const client = as(server.info, created.token);
  assert.equal((await client.get('/me')).body.username, 'dev-seller');
  assert.equal((await client.post('/assets', { title: 'Castle Pack', slug: 'castle-pack' })).status, 403, 'assets:write was not granted');
  const listed = await as(server.info, server.info.dev_seller.token).get('/tokens');
  assert.ok(listed.body.data.some((token: { id: string }) => token.id === created.id));
});

test('token create by account id, with all scopes, in text', async (t) => {
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir]);
  t.after(() => server.stop('SIGKILL'));
  const run = await runCli(['token', 'create', '--account', server.info.dev_seller.id, '--all-scopes'], { MARKETKIT_DATA_DIR: dir });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /scopes {3}profile:read, profile:write, assets:read, assets:write, tokens:read, tokens:revoke/);
  assert.match(run.stdout, /expires {2}never/);
  const token = /token {4}(smcp_\w+)/.exec(run.stdout)?.[1];
  assert.ok(token);
  assert.equal((await as(server.info, token).get('/tokens')).status, 200);
});

test('token create says what is wrong: no account, no database, a bad scope, a bad expiry', async (t) => {
  const dir = tempDir(t);
  const empty = await runCli(['token', 'create', '--account', 'dev-seller', '--data-dir', dir]);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /there is no MarketKit database in .*Start the server once/);

  const server = await startCliServer(['--data-dir', dir]);
  await server.stop('SIGINT');
  const unknown = await runCli(['token', 'create', '--account', 'nobody', '--data-dir', dir]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /there is no account "nobody"/);
  const scope = await runCli(['token', 'create', '--account', 'dev-seller', '--scope', 'assets:delete', '--data-dir', dir]);
  assert.equal(scope.code, 2);
  assert.match(scope.stderr, /scope must be one of profile:read/);
  const expiry = await runCli(['token', 'create', '--account', 'dev-seller', '--expires-in', 'soon', '--data-dir', dir]);
  assert.equal(expiry.code, 2);
  assert.match(expiry.stderr, /expires-in must be a number of days from 1 to 3650, or never/);
  const missing = await runCli(['token', 'create', '--data-dir', dir]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--account is required/);
});

test('token and token create answer --help', async () => {
  const token = await runCli(['token', '--help']);
  assert.equal(token.code, 0);
  assert.match(token.stdout, /Usage: marketkit token <command>/);
  const create = await runCli(['token', 'create', '--help']);
  assert.equal(create.code, 0);
  assert.match(create.stdout, /--expires-in <days\|never>/);
  assert.match(create.stdout, /--data-dir <dir>/);
});
