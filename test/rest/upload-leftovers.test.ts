/**
 * The sweep removes what uploads in progress leave in the store without any record (docs/security.md,
 * "Disk: what is removed, and when"): on fs, partial files, temporary files and metadata without
 * its object; on S3, tail objects (and multipart uploads, where the store lists them). Only what
 * nothing touched for the longest an upload can take bytes (its URL's life and the grace after
 * it): a live upload and a confirmed file are never touched.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { s3Blobs } from '../../adapters/s3/index.js';
import type { ClockPort } from '../../core/ports/clock.js';
import { filesUnder } from '../fixtures/files.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../fixtures/s3.js';
import { as, startServer, validAsset } from '../fixtures/server.js';

const tus = { 'tus-resumable': '1.0.0' };
const patch = (url: string, offset: number, body: Uint8Array) =>
  fetch(url, { method: 'PATCH', headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) }, body: body as BodyInit });

let s3: S3Server;
before(async () => {
  s3 = await startS3Server();
});
after(() => s3.stop());

test('fs: leftovers older than an upload can live go; a live upload and a confirmed file stay, and the upload completes', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'marketkit-leftovers-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const server = await startServer({ blobs: fsBlobs({ root }) });
  t.after(() => server.close());
  const client = as(server, server.seller.token);

  // A confirmed file, and an upload half sent.
  const done = (await client.post('/assets', validAsset())).body.id;
  const doneUpload = (await client.post(`/assets/${done}/upload-url`, { filename: 'a.zip', file_size: 1000 })).body;
  assert.equal((await patch(doneUpload.upload_url, 0, new Uint8Array(1000).fill(1))).status, 204);
  assert.equal((await client.post(`/assets/${done}/confirm-file`, { storage_path: doneUpload.storage_path, file_size: 1000 })).status, 200);
  const live = (await client.post('/assets', validAsset())).body.id;
  const bytes = crypto.getRandomValues(new Uint8Array(4000));
  const liveUpload = (await client.post(`/assets/${live}/upload-url`, { filename: 'b.zip', file_size: 4000 })).body;
  assert.equal((await patch(liveUpload.upload_url, 0, bytes.subarray(0, 2000))).status, 204);

  // What a process killed at the wrong moment leaves, last written four hours ago (the URL lives
  // two hours, the grace one more).
  const old = (Date.now() - 4 * 3600_000) / 1000;
  const left = [join(root, 'partial', 'f'.repeat(64)), join(root, 'tmp', 'gone-host~1~x'), join(root, 'meta', 'assets', 'x', 'files', 'y', 'pack.zip')];
  for (const file of left) {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, 'left behind');
    utimesSync(file, old, old);
  }
  // The confirmed file is as old: objects are never leftovers. The live upload's partial file is
  // fresh, as a live upload's always is (no upload takes bytes longer than its URL and the grace).
  const confirmed = filesUnder(root).filter((file) => file.includes(`${join('objects', 'assets')}`) || file.includes(`${join('meta', 'assets', done)}`));
  assert.equal(confirmed.length, 2, 'the confirmed file and its metadata');
  for (const file of confirmed) utimesSync(file, old, old);
  const before = filesUnder(root);

  const report = await server.marketplace.maintenance.sweepUploads();
  assert.equal(report.leftovers, 3, JSON.stringify(report));
  assert.deepEqual(filesUnder(root).sort(), before.filter((file) => !left.includes(file)).sort(), 'the three leftovers went, nothing else');
  assert.equal((await server.marketplace.maintenance.sweepUploads()).leftovers, 0, 'the next sweep within the hour does not look again');

  assert.equal((await patch(liveUpload.upload_url, 2000, bytes.subarray(2000))).status, 204, 'the live upload goes on');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const completed = await client.post(`/assets/${live}/confirm-file`, { storage_path: liveUpload.storage_path, file_size: 4000, sha256 });
  assert.equal(completed.status, 200, JSON.stringify(completed.body));
  assert.equal((await client.get(`/assets/${done}`)).body.file.file_size, 1000, 'the confirmed file is still there');
  const served = await server.marketplace.ports.blobs.head(doneUpload.storage_path);
  assert.equal(served?.size, 1000);
});

test('S3: a tail object left with no record goes once it is older than an upload can live; objects stay', async (t) => {
  // s3rver dates objects by the real clock; a URL life of 1 s and a grace of 1 s make "older" 2 s.
  const clock: ClockPort = { now: () => Date.now() };
  const prefix = `leftovers-${crypto.randomUUID()}/`;
  const blobs = s3Blobs({ endpoint: s3.endpoint, bucket: s3.bucket, pathStyle: true, prefix, ...s3rverCredentials, clock, env: {} });
  const server = await startServer({ blobs, clock, uploadUrlTtlSeconds: 1, uploadGraceSeconds: 1 });
  t.after(() => server.close());
  const put = (path: string) => blobs.put(path, (async function* () { yield new Uint8Array(10); })(), { contentType: 'application/octet-stream', maxBytes: 100 });
  await put('assets/a/files/b/pack.zip.tail-3');
  await put('assets/a/files/b/pack.zip');
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  await put('assets/a/files/c/fresh.zip.tail-0');
  const report = await server.marketplace.maintenance.sweepUploads();
  assert.equal(report.leftovers, 1, JSON.stringify(report));
  assert.deepEqual(s3.keys(prefix).map((key) => key.slice(prefix.length)).sort(), ['assets/a/files/b/pack.zip', 'assets/a/files/c/fresh.zip.tail-0']);
});
