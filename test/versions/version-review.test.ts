/**
 * What a moderator sees of a version (docs/moderation.md, "What changed"), over the admin surface
 * on every blob store (memory, fs, S3 by s3rver): field changes against the live listing, both
 * files' sizes and digests, and for zip archives made here by Debian's `zip` the entries added,
 * removed and changed, read from the central directories only (bytes read far below the files'
 * sizes); a file that is not a zip says so. Then the queue, approval and rollback over the same
 * surface, and `marketkit admin`'s names for them.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { memoryBlobs } from '../../adapters/memory/index.js';
import { s3Blobs } from '../../adapters/s3/index.js';
import type { BlobPort } from '../../core/ports/blobs.js';
import type { ClockPort } from '../../core/ports/clock.js';
import { needs } from '../fixtures/parts.js';
import { startS3Server, s3rverCredentials, type S3Server } from '../fixtures/s3.js';
import { as, putSigned, startServer, uploadFile, validAsset, type TestServer } from '../fixtures/server.js';

const { test } = needs('zip');
const serviceKey = 'version-review-service-key-0123456789abcdef';
const work = mkdtempSync(join(tmpdir(), 'marketkit-zips-'));
const stops: (() => Promise<void>)[] = [];
after(async () => {
  for (const stop of stops) await stop();
  rmSync(work, { recursive: true, force: true });
});

/** A zip archive made by `zip` from `files` (name -> content); its bytes. */
function zipOf(name: string, files: Record<string, string | Uint8Array>): Uint8Array {
  const dir = join(work, name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  execFileSync('zip', ['-q', '-r', '-0', join(work, `${name}.zip`), '.'], { cwd: dir });
  return readFileSync(join(work, `${name}.zip`));
}

const big = randomBytes(4 * 1024 * 1024);
const liveZip = () => zipOf('live', { 'a.txt': 'alpha', 'b.txt': 'beta', 'maps/castle.map': 'keep', 'big.bin': big });
const nextZip = () => zipOf('next', { 'a.txt': 'alpha, fixed', 'maps/castle.map': 'keep', 'maps/tower.map': 'new', 'big.bin': big });
const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function admin(server: TestServer, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}/api/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${serviceKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

/** A published listing with `live` as its file, and a pending version with `next` and a new title. */
async function underReview(server: TestServer, live: Uint8Array, next: Uint8Array) {
  const client = as(server, server.seller.token);
  const id = (await client.post('/assets', validAsset({ title: 'Castle Pack' }))).body.id;
  await uploadFile(server, server.seller.token, id, live);
  await client.post(`/assets/${id}/submit`);
  assert.equal((await admin(server, 'POST', `/assets/${id}/approve`)).status, 200);
  const version = (await client.post(`/assets/${id}/versions`, { version: '1.1.0', changes: { title: 'Castle Pack II' } })).body;
  const issued = (await client.post(`/assets/${id}/versions/${version.id}/upload-url`, { filename: 'next.zip' })).body;
  assert.equal((await putSigned(issued.signed_url, next, 'application/zip')).status, 200);
  assert.equal((await client.post(`/assets/${id}/versions/${version.id}/confirm-file`, { storage_path: issued.storage_path, file_size: next.byteLength })).status, 200);
  assert.equal((await client.post(`/assets/${id}/versions/${version.id}/submit`)).status, 200);
  return { id, versionId: version.id as string };
}

/** A blob store, and the clock the marketplace must run on with it (s3rver judges presigned URLs by the real clock). */
const realClock: ClockPort = { now: () => Date.now() };
const blobStores: [string, () => Promise<{ blobs: BlobPort; clock?: ClockPort }>][] = [
  ['memory', async () => ({ blobs: memoryBlobs() })],
  ['fs', async () => {
    const root = mkdtempSync(join(tmpdir(), 'marketkit-review-fs-'));
    stops.push(async () => rmSync(root, { recursive: true, force: true }));
    return { blobs: fsBlobs({ root }) };
  }],
  ['S3 (s3rver)', async () => {
    const s3: S3Server = await startS3Server();
    stops.push(() => s3.stop());
    return { blobs: s3Blobs({ endpoint: s3.endpoint, bucket: s3.bucket, pathStyle: true, ...s3rverCredentials, clock: realClock, env: {} }), clock: realClock };
  }],
];

for (const [name, makeBlobs] of blobStores) {
  describe(`a version's review on ${name} blobs`, () => {
    test('zip archives: entries added, removed and changed from the central directories only; then the queue, approval and rollback', async () => {
      const server = await startServer({ ...(await makeBlobs()), serviceKey });
      stops.push(() => server.close());
      const live = liveZip();
      const next = nextZip();
      const { id, versionId } = await underReview(server, live, next);

      const queue = await admin(server, 'GET', '/moderation/queue?kind=version');
      assert.equal(queue.status, 200);
      assert.deepEqual(queue.body.items.map((v: { id: string; status: string; kind: string }) => [v.kind, v.id, v.status]), [['version', versionId, 'pending']]);

      const review = await admin(server, 'GET', `/versions/${versionId}/review`);
      assert.equal(review.status, 200, JSON.stringify(review.body));
      const { archive, files, field_changes } = review.body;
      assert.deepEqual(field_changes, [{ field: 'title', live: 'Castle Pack', proposed: 'Castle Pack II' }]);
      // A single PUT to S3's own presigned URL is hashed by no one but S3: the digest is null there (docs/uploads.md).
      const digest = (bytes: Uint8Array) => (name.startsWith('S3') ? null : sha(bytes));
      assert.deepEqual([files.live.file_size, files.live.sha256, files.proposed.file_size, files.proposed.sha256], [live.byteLength, digest(live), next.byteLength, digest(next)]);
      assert.equal(archive.kind, 'zip');
      const names = (list: { name: string }[]) => list.map((entry) => entry.name.replace(/^\.\//, ''));
      assert.deepEqual(names(archive.added), ['maps/tower.map']);
      assert.deepEqual(names(archive.removed), ['b.txt']);
      assert.deepEqual(names(archive.changed), ['a.txt']);
      assert.deepEqual([archive.changed[0].before.size, archive.changed[0].after.size], [5, 12]);
      // Two archives of over 4 MiB each, compared by reading their directories: a few kilobytes.
      assert.ok(archive.bytes_read > 0 && archive.bytes_read < 256 * 1024, `bytes read: ${archive.bytes_read} of ${live.byteLength + next.byteLength}`);

      const approved = await admin(server, 'POST', `/versions/${versionId}/approve`);
      assert.deepEqual([approved.status, approved.body.status], [200, 'approved']);
      const listing = (await as(server, server.seller.token).get(`/assets/${id}`)).body;
      assert.deepEqual([listing.version, listing.title, listing.file.file_size, listing.file.sha256], ['1.1.0', 'Castle Pack II', next.byteLength, digest(next)]);
      const rolledBack = await admin(server, 'POST', `/assets/${id}/rollback`, { reason: 'Broke old saves' });
      assert.deepEqual([rolledBack.status, rolledBack.body.version], [200, '1.0.0']);
      const again = await admin(server, 'POST', `/assets/${id}/rollback`, {});
      assert.deepEqual([again.status, again.body.code], [409, 'INVALID_STATUS'], 'nothing older than the first publication to roll back to');
    });

    test('a file that is not a zip archive says so', async () => {
      const server = await startServer({ ...(await makeBlobs()), serviceKey });
      stops.push(() => server.close());
      const { versionId } = await underReview(server, liveZip(), new TextEncoder().encode('just some text, no archive'));
      const review = await admin(server, 'GET', `/versions/${versionId}/review`);
      assert.equal(review.status, 200);
      assert.equal(review.body.archive.kind, 'not-zip');
      assert.match(review.body.archive.reason, /version's file is not a zip archive/);
      assert.deepEqual([review.body.archive.added, review.body.archive.removed, review.body.archive.changed], [[], [], []]);
    });
  });
}
