/**
 * The typed client's resumable uploadFile (docs/uploads.md, "Clients that resume") against a real
 * server, through a real HTTP proxy that cuts connections: tus PATCHes above the threshold, the
 * single PUT below it, resumes from the server's offset after a cut and after its process is
 * killed, progress that never goes back, and the SHA-256 checked at confirm-file.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { fileSource, nodeFetch } from '../../bindings/node/index.js';
import { createClient, MarketKitError } from '../../client/index.js';
import { systemClock } from '../../core/ports/clock.js';
import { bigFile } from '../fixtures/big-file.js';
import { tempDir } from '../fixtures/cli.js';
import { startServer, validAsset } from '../fixtures/server.js';
import { startFaultProxy, type Decision } from './fault-proxy.js';

const MiB = 2 ** 20;
const fast = { baseDelayMs: 5, maxDelayMs: 50 };

async function setUp(t: { after(fn: () => unknown): void }, decide: (method: string, path: string, index: number) => Decision = () => 'forward') {
  const dir = tempDir(t, 'marketkit-resumable-');
  // The system clock: the resume store and the server agree on when an upload URL expires.
  const server = await startServer({ blobs: fsBlobs({ root: join(dir, 'blobs') }), clock: systemClock });
  t.after(() => server.close());
  const proxy = await startFaultProxy(server.url, decide, { preserveHost: true });
  t.after(() => proxy.close());
  const client = createClient({ baseUrl: proxy.url, token: server.seller.token, fetch: nodeFetch, retry: fast });
  const asset = await client.createAsset(validAsset());
  return { dir, server, proxy, client, asset };
}

function monotonic(progress: { loaded: number; total: number | null }[], size: number) {
  assert.ok(progress.length > 0, 'progress was reported');
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.loaded >= progress[i - 1]!.loaded, `progress went back: ${JSON.stringify(progress.slice(i - 1, i + 1))}`);
  assert.equal(progress.at(-1)!.loaded, size);
  assert.ok(progress.every((report) => report.total === size));
}

const uploads = (log: string[], method: string) => log.filter((entry) => entry.startsWith(`${method} `) && !entry.includes('/api/v1/assets/')).length;

test('above the threshold uploadFile sends checksummed tus chunks and confirms with the SHA-256; below it, one PUT', async (t) => {
  const { dir, proxy, client, asset } = await setUp(t);
  const big = bigFile(dir, 3, 'big.bin');
  const progress: { loaded: number; total: number | null }[] = [];
  const confirmed = await client.uploadFile(asset.id, await fileSource(big.path), { resumableThreshold: MiB, chunkSize: MiB, onProgress: (report) => progress.push(report) });
  assert.equal(confirmed.file.file_size, big.size);
  assert.equal(confirmed.file.sha256, big.sha256);
  assert.equal(uploads(proxy.log, 'PATCH'), 3, proxy.log.join('\n'));
  assert.equal(uploads(proxy.log, 'PUT'), 0);
  assert.deepEqual(progress.map((report) => report.loaded), [0, MiB, 2 * MiB, 3 * MiB]);

  const small = bigFile(dir, 1, 'small.bin');
  const putProgress: { loaded: number; total: number | null }[] = [];
  const put = await client.uploadFile(asset.id, await fileSource(small.path), { resumableThreshold: 2 * MiB, onProgress: (report) => putProgress.push(report) });
  assert.equal(put.file.sha256, small.sha256);
  assert.equal(uploads(proxy.log, 'PUT'), 1, 'below the threshold: the single PUT');
  assert.equal(uploads(proxy.log, 'PATCH'), 3, 'and no PATCH');
  monotonic(putProgress, small.size);

  const wrong = await client
    .uploadFile(asset.id, await fileSource(big.path), { resumableThreshold: MiB, chunkSize: MiB, sha256: 'ab'.repeat(32) })
    .then(() => assert.fail('a wrong sha256 was confirmed'), (error: unknown) => error as MarketKitError);
  assert.equal(wrong.status, 422);
  assert.equal(wrong.code, 'CHECKSUM_MISMATCH');
  assert.equal((await client.getAsset(asset.id)).file?.sha256, small.sha256, 'nothing was confirmed');
});

test('a PATCH cut off mid-way and a 503: the client asks HEAD and goes on from the server offset, progress never going back', async (t) => {
  const { dir, proxy, client, asset } = await setUp(t, (method, path, index) => {
    if (method !== 'PATCH' || !path.startsWith('/api/v1/uploads/')) return 'forward';
    if (index === 1) return { cutRequestAfter: MiB };
    if (index === 3) return { answer: { status: 503 } };
    return 'forward';
  });
  const file = bigFile(dir, 10);
  const progress: { loaded: number; total: number | null }[] = [];
  const confirmed = await client.uploadFile(asset.id, await fileSource(file.path), { resumableThreshold: MiB, chunkSize: 2 * MiB, onProgress: (report) => progress.push(report) });
  assert.equal(confirmed.file.sha256, file.sha256);
  assert.equal(confirmed.file.file_size, file.size);
  monotonic(progress, file.size);
  assert.ok(uploads(proxy.log, 'HEAD') >= 2, `HEAD after each failure: ${proxy.log.join('\n')}`);
  assert.ok(uploads(proxy.log, 'PATCH') >= 7, 'five chunks and the two that failed');
});

test('killed part-way, the upload goes on in a new process from the server offset, through the resume file', async (t) => {
  const { dir, server, client, asset } = await setUp(t);
  const file = bigFile(dir, 96);
  const stateFile = join(dir, 'state', 'uploads.json');
  const script = new URL('resumable-upload-script.ts', import.meta.url).pathname;
  const run = () => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, file.path, asset.id, stateFile], {
      env: { ...process.env, MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    t.after(() => child.kill('SIGKILL'));
    const lines: any[] = [];
    child.stdout.setEncoding('utf8').on('data', (text: string) => text.split('\n').filter(Boolean).forEach((line) => lines.push(JSON.parse(line))));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, lines, exited };
  };
  const first = run();
  while (first.lines.filter((line) => line.loaded > 0).length < 3) {
    assert.equal(first.child.exitCode, null, `the first upload ended early: ${JSON.stringify(first.lines)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  first.child.kill('SIGKILL');
  await first.exited;
  const remembered = Object.values(JSON.parse(readFileSync(stateFile, 'utf8'))) as { upload_url: string; size: number }[];
  assert.equal(remembered.length, 1, 'the upload in progress is in the resume file');
  assert.equal(remembered[0]!.size, file.size);

  const second = run();
  assert.equal(await second.exited, 0);
  const reached = first.lines.at(-1).loaded;
  assert.ok(second.lines[0].loaded >= reached && second.lines[0].loaded < file.size, `resumed from the server offset (${second.lines[0].loaded}), not from zero; the first got to ${reached}`);
  assert.deepEqual(second.lines.at(-1).confirmed.sha256, file.sha256);
  assert.deepEqual(JSON.parse(readFileSync(stateFile, 'utf8')), {}, 'the confirmed upload is forgotten');
  assert.equal((await client.getAsset(asset.id)).file?.sha256, file.sha256);
  assert.ok(existsSync(stateFile));
});
