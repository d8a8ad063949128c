/**
 * The callers the read cache keeps (core/read-cache.ts) outlive listing writes but never a change
 * to their token or account, made by any process: two `marketkit serve` processes on one data
 * directory and the `marketkit` commands as a third, each its own SQLite connection, as a user runs
 * them. After creates and changes of listings through either server, a token revoked or an account
 * suspended from another process is refused on the very next request to each server.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { as, validAsset } from '../fixtures/server.js';

test('SQLite: a token revoked and an account suspended by another process are refused on the next request, after listing writes through both servers', async (t) => {
  const dir = tempDir(t);
  const first = await startCliServer(['--data-dir', dir]);
  t.after(() => first.stop('SIGKILL'));
  const second = await startCliServer(['--data-dir', dir]);
  t.after(() => second.stop('SIGKILL'));
  const servers = [first, second];
  const writer = first.info.dev_seller.token!;
  const made = async (name: string) => {
    const run = await runCli(['token', 'create', '--account', 'dev-seller', '--name', name, '--data-dir', dir, '--json']);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout) as { token: string; id: string };
  };
  const [victim, reader] = await Promise.all([made('victim'), made('reader')]);
  // Known to both servers, each use after the first served from the caller each keeps.
  for (const server of servers) for (let i = 0; i < 2; i++) for (const { token } of [victim, reader]) assert.equal((await as(server.info, token).get('/me')).status, 200);

  for (const [round, server] of servers.entries()) {
    const created = await as(server.info, writer).post('/assets', validAsset());
    assert.equal(created.status, 201);
    assert.equal((await as(servers[1 - round]!.info, writer).patch(`/assets/${created.body.id}`, { title: 'Renamed Pack' })).status, 200);
    for (const each of servers) assert.equal((await as(each.info, victim.token).get('/me')).status, 200);
  }
  const revoked = await runCli(['token', 'revoke', '--account', 'dev-seller', '--id', victim.id, '--data-dir', dir]);
  assert.equal(revoked.code, 0, revoked.stderr);
  for (const server of servers) assert.equal((await as(server.info, victim.token).get('/me')).status, 401, `${server.info.url} refused the revoked token on its next request`);

  // Another listing write, then the account suspended from a third process.
  assert.equal((await as(second.info, writer).post('/assets', validAsset())).status, 201);
  for (const server of servers) assert.equal((await as(server.info, reader.token).get('/me')).status, 200);
  const suspended = await runCli(['admin', 'update-account', 'dev-seller', '--is-suspended', 'true', '--data-dir', dir]);
  assert.equal(suspended.code, 0, suspended.stderr);
  for (const server of servers) assert.equal((await as(server.info, reader.token).get('/me')).status, 403, `${server.info.url} refused the suspended account on its next request`);
  const lifted = await runCli(['admin', 'update-account', 'dev-seller', '--is-suspended', 'false', '--data-dir', dir]);
  assert.equal(lifted.code, 0, lifted.stderr);
  for (const server of servers) assert.equal((await as(server.info, reader.token).get('/me')).status, 200);
});
