/**
 * Resumable uploads (tus, upload_url) on the S3 adapter, against a real S3 server (s3rver): the
 * bytes go into an S3 multipart upload whose part list lives in the upload state, a tail short of
 * a part waits beside the file's key, another adapter object (another instance) continues from
 * the record alone, the completion makes the object at the file's storage path (confirm copies
 * nothing, and a presigned PUT to the staging key loses to it), and termination and the sweep abort it.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { manualClock } from '../../adapters/memory/index.js';
import { resumablePartBytes, s3Blobs, s3MaxParts } from '../../adapters/s3/index.js';
import { AppendRefusedError, type StoredProgress } from '../../core/ports/resumable-blobs.js';
import { as, startServer, validAsset } from '../fixtures/server.js';
import { lostCompletion, lostUploadedMark } from '../fixtures/tus.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../fixtures/s3.js';

const MiB = 2 ** 20;
const tus = { 'tus-resumable': '1.0.0' };
const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const patch = (url: string, offset: number, bytes: Uint8Array) =>
  fetch(url, { method: 'PATCH', headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) }, body: bytes as BodyInit });

let s3: S3Server;
before(async () => {
  s3 = await startS3Server();
});
after(() => s3.stop());

const adapter = (prefix: string, clock = { now: () => Date.now() }) => s3Blobs({ endpoint: s3.endpoint, bucket: s3.bucket, pathStyle: true, prefix, ...s3rverCredentials, clock, env: {} });

/** s3rver keeps the parts of a multipart upload under `<bucket>/.../uploads/<id>...` until completed. */
function multipartLeftovers(uploadId: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.includes(uploadId)) found.push(entry.name);
      if (entry.isDirectory()) walk(join(dir, entry.name));
    }
  };
  walk(s3.directory);
  return found;
}

async function* chunks(bytes: Uint8Array, size: number, fail?: Error) {
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
  if (fail) throw fail;
}

describe('the S3 store takes resumable uploads as multipart uploads', () => {
  test('part sizes keep any upload within 10,000 parts, in whole MiB, never under the minimum given (S3’s 5 MiB at least)', () => {
    assert.equal(resumablePartBytes(20 * 1024 * MiB, 8 * MiB), 8 * MiB, '20 GiB fits in 8 MiB parts');
    assert.equal(resumablePartBytes(100 * 1024 * MiB, 8 * MiB), 11 * MiB, '100 GiB: 10.24 MiB rounded up');
    assert.equal(resumablePartBytes(1000, 5 * MiB), 5 * MiB, 'never under S3’s 5 MiB');
    for (const length of [1, 5 * MiB, 48 * 1024 * MiB + 1, 5 * 1024 ** 4]) {
      const size = resumablePartBytes(length, 8 * MiB);
      assert.ok(Math.ceil(length / size) <= s3MaxParts && size % MiB === 0, `${length} bytes in parts of ${size}`);
    }
  });

  test('appends fill parts of the computed size, keep a tail, survive a cut body, drop a refused one, and another adapter completes from the record', async () => {
    const prefix = `parts-${crypto.randomUUID()}`;
    const [one, other] = [adapter(prefix), adapter(prefix)];
    const length = 100 * 1024 * MiB;
    const bytes = new Uint8Array(randomBytes(30 * MiB));
    const key = 'staging/assets/a/files/b/pack.bin';
    const start: StoredProgress = { offset: 0, length, storeUploadId: null, parts: [] };
    const first = await one.resumable.append(key, start, chunks(bytes.subarray(0, 24 * MiB), MiB));
    assert.deepEqual(first.parts.map((p) => [p.number, p.size]), [[1, 11 * MiB], [2, 11 * MiB]], 'parts of 11 MiB for a 100 GiB upload');
    assert.equal(first.offset, 24 * MiB, 'the 2 MiB short of a part kept as the tail');
    assert.ok(first.storeUploadId);
    assert.deepEqual(s3.keys(`${prefix}/`), [`${prefix}/${key}.tail-2`]);

    // A body refused part-way keeps nothing: the recorded tail and parts stand.
    await assert.rejects(other.resumable.append(key, first, chunks(bytes.subarray(24 * MiB, 28 * MiB), MiB, new AppendRefusedError('checksum'))), AppendRefusedError);
    // A body cut off keeps what arrived, here on the other adapter (another instance) from the record alone.
    const cut = await other.resumable.append(key, first, chunks(bytes.subarray(24 * MiB, 27 * MiB), 512 * 1024, new Error('client went away')));
    assert.ok(cut.interrupted);
    assert.equal(cut.offset, 27 * MiB);
    const last = await one.resumable.append(key, { ...cut, length: 30 * MiB }, chunks(bytes.subarray(27 * MiB), MiB));
    assert.equal(last.offset, 30 * MiB);
    const info = await other.resumable.complete(key, last, 'application/octet-stream');
    assert.equal(info.size, 30 * MiB);
    const stored = await one.get(key);
    const parts: Uint8Array[] = [];
    for await (const chunk of stored!.body) parts.push(chunk);
    assert.equal(sha256Hex(Buffer.concat(parts)), sha256Hex(bytes), 'the object is the bytes, in order');
    assert.deepEqual(s3.keys(`${prefix}/`), [`${prefix}/${key}`], 'no tail left');
  });

  test('an upload smaller than one part completes as a plain PUT of its tail', async () => {
    const blobs = adapter(`small-${crypto.randomUUID()}`);
    const bytes = new Uint8Array(randomBytes(300_000));
    const progress = await blobs.resumable.append('staging/s/pack.bin', { offset: 0, length: bytes.byteLength, storeUploadId: null, parts: [] }, chunks(bytes, 65_536));
    assert.deepEqual([progress.offset, progress.storeUploadId, progress.parts], [bytes.byteLength, null, []]);
    await blobs.resumable.complete('staging/s/pack.bin', progress, 'application/octet-stream');
    assert.equal(sha256Hex((await blobs.readStart('staging/s/pack.bin', bytes.byteLength))!), sha256Hex(bytes));
  });
});

describe('tus on S3 through the HTTP surface', () => {
  test('upload_url works on S3: appends across parts, the part list kept in the upload state, confirm-file with the SHA-256', async (t) => {
    const clock = manualClock(Date.now());
    const blobs = adapter(`tus-${crypto.randomUUID()}`, clock);
    const server = await startServer({ blobs, clock });
    t.after(() => server.close());
    const client = as(server, server.seller.token);
    const id = (await client.post('/assets', validAsset())).body.id as string;
    const bytes = new Uint8Array(randomBytes(19 * MiB + 123));
    const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.bin', file_size: bytes.byteLength })).body;
    assert.equal(new URL(issued.upload_url).origin, new URL(server.url).origin, 'the tus route is the marketplace’s own');
    for (let at = 0; at < bytes.byteLength; at += 3 * MiB) {
      const answer = await patch(issued.upload_url, at, bytes.subarray(at, at + 3 * MiB));
      assert.equal(answer.status, 204, await answer.text());
      if (at === 9 * MiB) {
        const state = (await server.marketplace.ports.uploadStates.get(issued.storage_path))!;
        assert.deepEqual([state.offset, state.parts.map((p) => p.size)], [12 * MiB, [5 * MiB, 5 * MiB]], 'two 5 MiB parts recorded, 2 MiB in the tail');
        assert.ok(state.store_upload_id);
      }
    }
    // The completion made the object where the file stays: confirm-file has nothing to copy.
    assert.deepEqual(s3.keys(blobs.settings.prefix + `assets/${id}/`), [blobs.keyOf(issued.storage_path)], 'the completed upload is at the storage path, its tail gone');
    // The presigned PUT of the same upload, replayed with other bytes of the same size, lands under the staging key and loses.
    const other = new Uint8Array(randomBytes(bytes.byteLength));
    assert.equal((await fetch(issued.signed_url, { method: 'PUT', body: other })).status, 200);
    assert.deepEqual(s3.keys(blobs.settings.prefix + 'staging/'), [blobs.keyOf(`staging/${issued.storage_path}`)]);
    const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: bytes.byteLength, sha256: sha256Hex(bytes) });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.file.sha256, sha256Hex(bytes));
    assert.equal(sha256Hex((await blobs.readStart(issued.storage_path, bytes.byteLength))!), sha256Hex(bytes), 'the confirmed object holds the resumable upload’s bytes');
    assert.deepEqual(s3.keys(blobs.settings.prefix + `assets/${id}/`), [blobs.keyOf(issued.storage_path)]);
    assert.deepEqual(s3.keys(blobs.settings.prefix + 'staging/'), [], 'no staging object or tail left');
  });

  test('a completion whose record was lost (a crash between the two): the last chunk sent again finishes the record from the object, SHA-256 right', async (t) => {
    const server = await startServer({ blobs: adapter(`lost-${crypto.randomUUID()}`), clock: manualClock(Date.now()) });
    t.after(() => server.close());
    await lostCompletion(server, 12 * MiB + 5);
  });

  test('the last byte recorded and the process killed before the upload was marked uploaded: confirm-file takes the object, SHA-256 right', async (t) => {
    const server = await startServer({ blobs: adapter(`mark-${crypto.randomUUID()}`), clock: manualClock(Date.now()) });
    t.after(() => server.close());
    await lostUploadedMark(server, 6 * MiB + 5);
  });

  test('a file declared over 5 GiB: its single PUT is refused with 413 naming upload_url, and upload_url takes it', async (t) => {
    const blobs = adapter(`big-${crypto.randomUUID()}`);
    const server = await startServer({ blobs, clock: manualClock(Date.now()) });
    t.after(() => server.close());
    const client = as(server, server.seller.token);
    const id = (await client.post('/assets', validAsset())).body.id as string;
    const size = 6 * 1024 * MiB;
    const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'huge.bin', file_size: size })).body;
    assert.equal(new URL(issued.signed_url).origin, new URL(server.url).origin, 'not a presigned S3 URL: S3 would take at most 5 GiB');
    const refused = await fetch(issued.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: new Uint8Array(1000) });
    const body = (await refused.json()) as { code: string; details: { path: string }[]; error: string };
    assert.deepEqual([refused.status, body.code, body.details[0]!.path], [413, 'PAYLOAD_TOO_LARGE', 'upload_url']);
    assert.match(body.error, /upload_url/);
    const probed = await fetch(issued.upload_url, { method: 'HEAD', headers: tus });
    assert.deepEqual([probed.status, probed.headers.get('upload-length')], [200, String(size)]);
    const small = (await client.post(`/assets/${id}/upload-url`, { filename: 'small.bin', file_size: 1000 })).body;
    assert.equal(new URL(small.signed_url).origin, s3.endpoint, 'up to 5 GiB the PUT still goes straight to S3');
  });

  test('termination and the sweep abort the multipart upload and remove the tail', async (t) => {
    const clock = manualClock(Date.now());
    const blobs = adapter(`abort-${crypto.randomUUID()}`, clock);
    const server = await startServer({ blobs, clock });
    t.after(() => server.close());
    const client = as(server, server.seller.token);
    const begin = async () => {
      const id = (await client.post('/assets', validAsset())).body.id as string;
      const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.bin', file_size: 40 * MiB })).body;
      assert.equal((await patch(issued.upload_url, 0, new Uint8Array(randomBytes(7 * MiB)))).status, 204);
      const state = (await server.marketplace.ports.uploadStates.get(issued.storage_path))!;
      assert.ok(state.store_upload_id && state.parts.length === 1);
      assert.deepEqual(s3.keys(blobs.keyOf(issued.storage_path)), [blobs.keyOf(`${issued.storage_path}.tail-1`)], 'the tail waits beside the file’s key, the object not made yet');
      return { ...issued, uploadId: state.store_upload_id! };
    };
    const gone = async (issued: { storage_path: string; uploadId: string }, how: string) => {
      assert.equal(await server.marketplace.ports.uploadStates.get(issued.storage_path), null, `${how}: the upload state is gone`);
      assert.deepEqual(s3.keys(blobs.keyOf(issued.storage_path)), [], `${how}: the tail is gone`);
      if (multipartLeftovers(issued.uploadId).length > 0) {
        // s3rver answers 405 to AbortMultipartUpload (docs/adapters.md): it cannot show the abort.
        console.warn(`LOUD: s3rver cannot abort a multipart upload (405): ${how} sent AbortMultipartUpload for ${issued.uploadId}, but s3rver keeps its parts; checked the server's own bookkeeping instead`);
      }
    };
    const terminated = await begin();
    assert.equal((await fetch(terminated.upload_url, { method: 'DELETE', headers: tus })).status, 204);
    assert.equal((await fetch(terminated.upload_url, { method: 'HEAD', headers: tus })).status, 404);
    await gone(terminated, 'termination');

    const abandoned = await begin();
    clock.advance(2 * 3600_000 + 3600_000 + 1000);
    assert.ok((await server.marketplace.maintenance.sweepUploads()).removed >= 1);
    await gone(abandoned, 'the sweep');
    assert.ok(!existsSync(join(s3.directory, s3.bucket, blobs.keyOf(`${abandoned.storage_path}.tail-1`))));
  });
});
