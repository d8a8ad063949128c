/**
 * `marketkit upload` as a seller runs it, against `marketkit serve` on fs (docs/uploads.md,
 * "marketkit upload"): a file of a few hundred MB, the command SIGKILLed part-way and run again,
 * which goes on from the server's offset; a wrong --sha256 confirms nothing (exit 3), the right one
 * confirms and prints the stored digest. Stdout is no terminal here: JSON lines, each one parsed.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { bigFile } from '../fixtures/big-file.js';
import { runCli, startCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { as, validAsset } from '../fixtures/server.js';

/** The whole lines written so far, each parsed (a line still being written is left for later). */
const lines = (stdout: string) => stdout.split('\n').slice(0, -1).filter(Boolean).map((line) => JSON.parse(line));

test('marketkit upload killed part-way, or stopped by Ctrl-C, resumes from the server offset when run again; --sha256 is checked at the end', async (t) => {
  const dir = tempDir(t, 'marketkit-upload-');
  const server = await startCliServer(['--data-dir', join(dir, 'data')]);
  t.after(() => server.stop('SIGKILL'));
  const seller = as(server.info, server.info.dev_seller.token!);
  const asset = (await seller.post('/assets', validAsset())).body;
  const file = bigFile(dir, 320);
  const env = { MARKETKIT_API_TOKEN: server.info.dev_seller.token! };
  const args = (...more: string[]) => ['upload', asset.id, file.path, '--url', server.info.url, '--state', join(dir, 'state.json'), ...more];

  const started = Date.now();
  const first = await startCli(args(), (stdout) => lines(stdout).filter((line) => line.event === 'progress' && line.loaded > 0).length >= 3, env);
  await first.stop('SIGKILL');
  const killedAt = Math.max(...lines(first.stdout()).map((line) => line.loaded ?? 0));
  assert.ok(killedAt > 0 && killedAt < file.size, `killed part-way (${killedAt} of ${file.size})`);

  // Ctrl-C: the run stops, says so, and exits 130.
  const second = await startCli(args(), (stdout) => lines(stdout).some((line) => line.event === 'progress' && line.loaded > killedAt), env);
  assert.equal((await second.stop('SIGINT')).code, 130);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const stopped = lines(second.stdout());
  assert.equal(stopped[0].event, 'resumed');
  assert.equal(stopped.at(-1).event, 'interrupted');
  assert.ok(stopped.at(-1).loaded > killedAt && stopped.at(-1).loaded < file.size, JSON.stringify(stopped.at(-1)));

  const wrong = await runCli(args('--sha256', 'ab'.repeat(32)), env);
  assert.equal(wrong.code, 3, wrong.stderr);
  const events = lines(wrong.stdout);
  assert.equal(events[0].event, 'resumed');
  assert.ok(events[0].offset >= stopped.at(-1).loaded, `resumed at the server offset (${events[0].offset}), at least what the last run saw acknowledged`);
  const progress = events.filter((line) => line.event === 'progress');
  assert.ok(progress[0].loaded > 0, 'its first progress is the server offset, not zero');
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i].loaded >= progress[i - 1].loaded, 'progress never goes back');
  assert.equal(progress.at(-1).loaded, file.size);
  for (const line of progress) for (const field of ['total', 'percent', 'rate', 'eta']) assert.ok(field in line, `${field} in ${JSON.stringify(line)}`);
  assert.equal(events.at(-1).event, 'error');
  assert.equal(events.at(-1).code, 'CHECKSUM_MISMATCH');
  assert.match(wrong.stderr, /the SHA-256 of what the server received is not the one given by --sha256 .*nothing was confirmed/);
  assert.equal((await seller.get(`/assets/${asset.id}`)).body.file, null, 'nothing confirmed');

  const right = await runCli(args('--sha256', file.sha256.toUpperCase()), env);
  assert.equal(right.code, 0, right.stderr);
  const done = lines(right.stdout);
  assert.deepEqual(done[0], { event: 'resumed', offset: file.size, total: file.size }, 'every byte was already there');
  assert.equal(done.at(-1).event, 'confirmed');
  assert.equal(done.at(-1).sha256, file.sha256);
  assert.equal(done.at(-1).file_size, file.size);
  const stored = (await seller.get(`/assets/${asset.id}`)).body.file;
  assert.equal(stored.sha256, file.sha256);
  assert.equal(stored.file_size, file.size);
  t.diagnostic(`${file.size / 2 ** 20} MiB uploaded through a kill, a Ctrl-C and three more runs in ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

test('marketkit upload: --help, and usage errors exit 2 saying what to change', async (t) => {
  const help = await runCli(['upload', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Usage: MARKETKIT_API_TOKEN=smcp_\.\.\. marketkit upload <asset-id> <file>/);
  assert.match(help.stdout, /--sha256 <hex>/);
  assert.match(help.stdout, /exit codes +0 confirmed; 1 the upload failed/);
  const dir = tempDir(t, 'marketkit-upload-');
  const noToken = await runCli(['upload', 'some-id', join(dir, 'x.bin')], { MARKETKIT_API_TOKEN: '' });
  assert.equal(noToken.code, 2);
  assert.match(noToken.stderr, /set MARKETKIT_API_TOKEN/);
  const noFile = await runCli(['upload', 'some-id', join(dir, 'missing.bin')], { MARKETKIT_API_TOKEN: 'smcp_x' });
  assert.equal(noFile.code, 2);
  assert.match(noFile.stderr, /cannot read .*missing\.bin: there is no such file/);
  const badSha = await runCli(['upload', 'some-id', join(dir, 'missing.bin'), '--sha256', 'xyz'], { MARKETKIT_API_TOKEN: 'smcp_x' });
  assert.equal(badSha.code, 2);
  assert.match(badSha.stderr, /sha256 must be 64 hexadecimal characters/);
  const oneArg = await runCli(['upload', 'some-id'], { MARKETKIT_API_TOKEN: 'smcp_x' });
  assert.equal(oneArg.code, 2);
  assert.match(oneArg.stderr, /expected <asset-id> <file>/);
});
