/**
 * A crash during an upload's first PATCH (docs/security.md, "Findings of the wave-4 upload security
 * test", 3): `marketkit serve` on fs is SIGKILLed while the first append's body is arriving, started
 * again on the same port, and the upload resumes from the server's offset, by tus-js-client and by
 * `marketkit upload`, as it does after a kill during any later PATCH. Before, every PATCH, the
 * single PUT and confirm were refused (403) until the URL expired.
 */
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { bigFile } from '../fixtures/big-file.js';
import { runCli, startCli, tempDir, type CliProcess } from '../fixtures/cli.js';
import { filesUnder } from '../fixtures/files.js';
import { freePort } from '../fixtures/haproxy.js';
import { as, validAsset } from '../fixtures/server.js';
import { offsetOf, tusHeaders, tusProcess } from '../fixtures/tus.js';

const MiB = 2 ** 20;
const lines = (stdout: string) => stdout.split('\n').slice(0, -1).filter(Boolean).map((line) => JSON.parse(line));

/** `marketkit serve` on a data directory and a fixed port (so that upload URLs outlive a restart), with a 2 s upload lease. */
async function serveOn(data: string, port: number): Promise<CliProcess & { info: any }> {
  const cli = await startCli(['serve', '--json', '--port', String(port), '--data-dir', data, '--upload-lease', '2'], (stdout) => stdout.includes('\n'));
  return { ...cli, info: JSON.parse(cli.stdout().split('\n')[0]!) };
}

/** Resolves once the upload's partial file on disk holds some bytes: the first append is under way. */
async function firstAppendUnderWay(data: string): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 20) {
    const partial = filesUnder(data).filter((file) => /[/\\]partial[/\\]/.test(file));
    if (partial.some((file) => statSync(file, { throwIfNoEntry: false })?.size)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail('the first append never wrote a byte');
}

test('the server SIGKILLed during the first PATCH: tus-js-client resumes from the server offset and the SHA-256 is the file\'s', { timeout: 90_000 }, async (t) => {
  const dir = tempDir(t);
  const data = join(dir, 'data');
  const port = await freePort();
  let server = await serveOn(data, port);
  t.after(() => server.stop('SIGKILL'));
  // The dev seller's token is printed on the first start only.
  const token: string = server.info.dev_seller.token;
  const seller = as(server.info, token);
  const file = bigFile(dir, 48);
  const asset = (await seller.post('/assets', validAsset())).body;
  const issued = (await seller.post(`/assets/${asset.id}/upload-url`, { filename: 'pack.bin', file_size: file.size })).body;

  // The first append, sent slowly, cut by SIGKILL after some of it arrived.
  const sending = request(new URL(issued.upload_url), {
    method: 'PATCH',
    headers: { ...tusHeaders, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0', 'content-length': String(file.size) },
  });
  sending.on('error', () => {});
  sending.write(Buffer.alloc(4 * MiB, 1));
  await firstAppendUnderWay(data);
  await server.stop('SIGKILL');
  sending.destroy();

  server = await serveOn(data, port);
  const offset = await offsetOf(issued.upload_url);
  assert.equal(offset, 0, 'nothing of the cut first append was acknowledged');
  const resumed = tusProcess(dir, file.path, file.size, { uploadUrl: issued.upload_url });
  t.after(() => resumed.child.kill('SIGKILL'));
  assert.equal(await resumed.exited, 0, JSON.stringify(resumed.lines));
  assert.deepEqual(resumed.lines.at(-1), { done: true });
  const confirmed = await as(server.info, token).post(`/assets/${asset.id}/confirm-file`, { storage_path: issued.storage_path, file_size: file.size, sha256: file.sha256 });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  assert.equal(confirmed.body.file.sha256, file.sha256);
});

test('the server SIGKILLed during the first PATCH of marketkit upload: run again, it resumes and confirms', { timeout: 90_000 }, async (t) => {
  const dir = tempDir(t);
  const data = join(dir, 'data');
  const port = await freePort();
  let server = await serveOn(data, port);
  t.after(() => server.stop('SIGKILL'));
  const token: string = server.info.dev_seller.token;
  const seller = as(server.info, token);
  const file = bigFile(dir, 64);
  const asset = (await seller.post('/assets', validAsset())).body;
  const env = { MARKETKIT_API_TOKEN: token };
  // One chunk for the whole file: the kill falls in the first PATCH.
  const args = ['upload', asset.id, file.path, '--url', server.info.url, '--state', join(dir, 'state.json'), '--resumable-threshold', '1MiB', '--chunk-size', '64MiB'];

  const first = await startCli(args, () => true, env);
  await firstAppendUnderWay(data);
  await server.stop('SIGKILL');
  await first.stop('SIGKILL');

  server = await serveOn(data, port);
  const remembered = Object.values(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'))) as { storage_path: string }[];
  assert.equal(remembered.length, 1, 'the first run remembered its upload');
  const again = await runCli(args, env);
  assert.equal(again.code, 0, `${again.stdout}\n${again.stderr}`);
  const events = lines(again.stdout);
  // Nothing of the cut append was acknowledged: it goes on from offset 0, on the same upload.
  assert.deepEqual(events[0], { event: 'progress', loaded: 0, total: file.size, percent: 0, rate: null, eta: null });
  assert.equal(events.at(-1).event, 'confirmed', JSON.stringify(events.at(-1)));
  assert.equal(events.at(-1).storage_path, remembered[0]!.storage_path, 'the upload the first run began, not a new one');
  assert.equal(events.at(-1).sha256, file.sha256);
  const stored = (await seller.get(`/assets/${asset.id}`)).body.file;
  assert.equal(stored.sha256, file.sha256);
  assert.equal(stored.file_size, file.size);
});

