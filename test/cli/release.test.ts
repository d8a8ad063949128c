/**
 * `marketkit release` as a seller runs it against `marketkit serve` (docs/moderation.md,
 * "Versions"): --dry-run changes nothing; a run SIGKILLed during the upload goes on when run again
 * (the same open version, the upload from the server's offset), confirms with the SHA-256 and
 * submits; the live listing keeps its file until a moderator approves over the admin surface.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { bigFile } from '../fixtures/big-file.js';
import { runCli, startCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { as, uploadFile, validAsset } from '../fixtures/server.js';

const lines = (stdout: string) => stdout.split('\n').slice(0, -1).filter(Boolean).map((line) => JSON.parse(line));
const serviceKey = 'release-test-service-key-0123456789abcdef';

test('marketkit release: --dry-run changes nothing; killed mid-upload, run again it goes on and submits; approval makes the file live', async (t) => {
  const dir = tempDir(t, 'marketkit-release-');
  const server = await startCliServer(['--data-dir', join(dir, 'data')], { MARKETKIT_SERVICE_KEY: serviceKey });
  t.after(() => server.stop('SIGKILL'));
  const token = server.info.dev_seller.token!;
  const seller = as(server.info, token);
  const admin = (method: string, path: string) =>
    fetch(`${server.info.url}/api/admin${path}`, { method, headers: { authorization: `Bearer ${serviceKey}` } }).then(async (res) => ({ status: res.status, body: await res.json() }));

  const asset = (await seller.post('/assets', validAsset({ title: 'Release Pack' }))).body;
  await uploadFile(server.info, token, asset.id, new TextEncoder().encode('PK the first version'));
  assert.equal((await seller.post(`/assets/${asset.id}/submit`)).status, 200);
  assert.equal((await admin('POST', `/assets/${asset.id}/approve`)).status, 200);
  const live = (await seller.get(`/assets/${asset.id}`)).body.file;

  const file = bigFile(dir, 80);
  writeFileSync(join(dir, 'notes.md'), '# 1.1.0\n\n- New towers\n');
  const env = { MARKETKIT_API_TOKEN: token };
  const args = (...more: string[]) => ['release', asset.id, file.path, '--version', '1.1.0', '--notes', join(dir, 'notes.md'), '--url', server.info.url, '--state', join(dir, 'state.json'), ...more];

  const dry = await runCli(args('--dry-run'), env);
  assert.equal(dry.code, 0, dry.stderr);
  const plan = lines(dry.stdout).at(-1);
  assert.deepEqual([plan.event, plan.version, plan.file_size, plan.sha256, plan.open_version_id], ['dry_run', '1.1.0', file.size, file.sha256, null]);
  assert.deepEqual((await seller.get(`/assets/${asset.id}/versions`)).body.items, [], 'a dry run creates nothing');

  const first = await startCli(args(), (stdout) => lines(stdout).filter((line) => line.event === 'progress' && line.loaded > 0).length >= 2, env);
  await first.stop('SIGKILL');
  const killedAt = Math.max(...lines(first.stdout()).map((line) => line.loaded ?? 0));
  assert.ok(killedAt > 0 && killedAt < file.size, `killed part-way (${killedAt} of ${file.size})`);

  const again = await runCli(args(), env);
  assert.equal(again.code, 0, again.stderr);
  const events = lines(again.stdout);
  assert.deepEqual([events[0].event, events[0].step], ['step', 'resumed_version'], 'the open version of the same string is gone on with, not a second one');
  const resumed = events.find((line) => line.event === 'resumed');
  assert.ok(resumed && resumed.offset >= killedAt, `the upload went on from the server's offset: ${JSON.stringify(resumed)}`);
  assert.deepEqual(events.at(-1), { event: 'submitted', version_id: events[0].version_id, status: 'pending' });

  const versions = (await seller.get(`/assets/${asset.id}/versions`)).body.items;
  assert.equal(versions.length, 1);
  assert.deepEqual([versions[0].version, versions[0].status, versions[0].file.sha256, versions[0].file.file_size, versions[0].release_notes], ['1.1.0', 'pending', file.sha256, file.size, '# 1.1.0\n\n- New towers\n']);
  assert.deepEqual((await seller.get(`/assets/${asset.id}`)).body.file, live, 'the live file is unchanged until approval');

  assert.equal((await admin('POST', `/versions/${versions[0].id}/approve`)).status, 200);
  const after = (await seller.get(`/assets/${asset.id}`)).body;
  assert.deepEqual([after.version, after.file.sha256, after.file.file_size], ['1.1.0', file.sha256, file.size]);

  const twice = await runCli(args(), env);
  assert.equal(twice.code, 1, 'the same version string again is refused: it was used');
  assert.match(twice.stdout, /CONFLICT/);
});

test('marketkit release --help lists its options; without --version it is a usage error', async () => {
  const help = await runCli(['release', '--help']);
  assert.equal(help.code, 0);
  for (const option of ['--version', '--notes', '--dry-run', '--url', '--json', '--state', 'MARKETKIT_API_TOKEN']) assert.ok(help.stdout.includes(option), option);
  const missing = await runCli(['release', 'an-asset', 'file.zip'], { MARKETKIT_API_TOKEN: 'smcp_x' });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /--version is required/);
});
