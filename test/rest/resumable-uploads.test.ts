import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fsBlobs } from '../../adapters/fs/index.js';
import { nodeHashing } from '../../bindings/node/index.js';
import { as, pngBytes, startServer, validAsset, type TestServer } from '../fixtures/server.js';
import { lostCompletion, lostUploadedMark } from '../fixtures/tus.js';

let server: TestServer;
before(async () => {
  server = await startServer({ maxFileBytes: 256 * 1024, maxImageBytes: 32 * 1024 });
});
after(() => server.close());

const tus = { 'tus-resumable': '1.0.0' };
const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sha256Base64 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('base64');
const head = (url: string) => fetch(url, { method: 'HEAD', headers: tus });
const patch = (url: string, offset: number, bytes: Uint8Array, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'PATCH', headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset), ...headers }, body: bytes as BodyInit });

async function issued(body: Record<string, unknown> = {}) {
  const client = as(server, server.seller.token);
  const id = (await client.post('/assets', validAsset())).body.id as string;
  const answer = await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip', ...body });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return { id, client, ...(answer.body as { upload_url: string; signed_url: string; storage_path: string }) };
}

describe('resumable uploads (tus 1.0.0) beside the single PUT', () => {
  test('creation, appends in chunks, HEAD between them, completion: confirm-file keeps the SHA-256 the server computed', async () => {
    const bytes = new Uint8Array(randomBytes(100_000));
    const { id, client, upload_url, storage_path } = await issued();
    assert.match(upload_url, /\/api\/v1\/uploads\/assets\/.+\?expires=\d+&max=\d+&signature=/);
    const options = await fetch(upload_url, { method: 'OPTIONS' });
    assert.equal(options.headers.get('tus-version'), '1.0.0');
    assert.match(options.headers.get('tus-extension')!, /creation.*termination.*expiration.*checksum/);
    assert.equal(options.headers.get('tus-checksum-algorithm'), 'sha256');
    const created = await fetch(upload_url, { method: 'POST', headers: { ...tus, 'upload-length': String(bytes.byteLength) } });
    assert.equal(created.status, 201);
    const location = created.headers.get('location')!;
    assert.equal((await head(location)).headers.get('upload-offset'), '0');
    const first = await patch(location, 0, bytes.subarray(0, 40_000), { 'upload-checksum': `sha256 ${sha256Base64(bytes.subarray(0, 40_000))}` });
    assert.equal(first.status, 204);
    assert.equal(first.headers.get('upload-offset'), '40000');
    const probed = await head(location);
    assert.deepEqual([probed.status, probed.headers.get('upload-offset'), probed.headers.get('upload-length'), probed.headers.get('cache-control')], [200, '40000', '100000', 'no-store']);
    assert.ok(probed.headers.get('upload-expires'), 'expiration: Upload-Expires');
    assert.equal((await patch(location, 40_000, bytes.subarray(40_000))).status, 204);
    const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path, file_size: bytes.byteLength, sha256: sha256Hex(bytes) });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.file.sha256, sha256Hex(bytes));
    assert.equal((await client.get(`/assets/${id}`)).body.file.sha256, sha256Hex(bytes), 'GET /assets/{id} shows it');
    assert.equal((await head(location)).status, 410, 'a confirmed upload takes no more bytes');
  });

  test('an upload begun by an older MarketKit (its state has no store key) completes under the staging key, and confirm-file moves it', async () => {
    const bytes = new Uint8Array(randomBytes(60_000));
    const { id, client, upload_url, storage_path } = await issued({ file_size: bytes.byteLength });
    const states = server.marketplace.ports.uploadStates;
    const made = (await states.get(storage_path))!;
    assert.equal(made.store_key, storage_path, 'a file’s upload is kept at its storage path now');
    assert.ok(await states.advance(storage_path, 0, { ...made, store_key: null }), 'the record as migration 15 leaves an older one');
    assert.equal((await patch(upload_url, 0, bytes.subarray(0, 25_000))).status, 204);
    assert.equal((await patch(upload_url, 25_000, bytes.subarray(25_000))).status, 204);
    assert.equal((await states.get(storage_path))!.store_key, null, 'the appends kept it where it began');
    const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path, file_size: bytes.byteLength, sha256: sha256Hex(bytes) });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    const stored = await server.marketplace.ports.blobs.readStart(storage_path, bytes.byteLength);
    assert.equal(sha256Hex(stored!), sha256Hex(bytes), 'the bytes were moved to the storage path');
    assert.equal(await server.marketplace.ports.blobs.head(`staging/${storage_path}`), null);
  });

  test('a completion whose record was lost (a crash between the two), on fs: the last chunk sent again finishes the record from the stored bytes, SHA-256 right', async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'marketkit-lost-'));
    const onFs = await startServer({ blobs: fsBlobs({ root: dir }) });
    t.after(async () => {
      await onFs.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await lostCompletion(onFs, 70_000);
  });

  test('the last byte recorded and the process killed before the upload was marked uploaded: HEAD says complete, confirm-file takes it (memory, fs)', async (t) => {
    await lostUploadedMark(server, 70_000);
    const dir = mkdtempSync(join(tmpdir(), 'marketkit-lost-'));
    const onFs = await startServer({ blobs: fsBlobs({ root: dir }) });
    t.after(async () => {
      await onFs.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await lostUploadedMark(onFs, 70_000);
  });

  test('a gallery image goes the same way: images/upload-url answers an upload_url, tus takes the PNG, confirm-image keeps it (its type read from its bytes)', async () => {
    const client = as(server, server.seller.token);
    const id = (await client.post('/assets', validAsset())).body.id as string;
    const answer = await client.post(`/assets/${id}/images/upload-url`, { filename: 'shot.png' });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const png = new Uint8Array([...pngBytes, ...randomBytes(3000)]);
    const created = await fetch(answer.body.upload_url, { method: 'POST', headers: { ...tus, 'upload-length': String(png.byteLength) } });
    assert.equal(created.status, 201);
    assert.equal((await patch(answer.body.upload_url, 0, png.subarray(0, 1000))).status, 204);
    assert.equal((await patch(answer.body.upload_url, 1000, png.subarray(1000), { 'upload-checksum': `sha256 ${sha256Base64(png.subarray(1000))}` })).status, 204);
    const confirmed = await client.post(`/assets/${id}/confirm-image`, { public_url: answer.body.public_url });
    assert.equal(confirmed.status, 201, JSON.stringify(confirmed.body));
    const shown = (await client.get(`/assets/${id}`)).body.images;
    assert.equal(shown.length, 1);
    const served = await fetch(shown[0].public_url);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.deepEqual(new Uint8Array(await served.arrayBuffer()), png, 'the image is the bytes sent through upload_url');
  });

  test('a PATCH whose Upload-Checksum does not match gets 460 and the offset does not move; a wrong offset 409', async () => {
    const bytes = new Uint8Array(randomBytes(20_000));
    const { upload_url } = await issued({ file_size: bytes.byteLength });
    assert.equal((await head(upload_url)).headers.get('upload-offset'), '0', 'a declared file_size needs no creation POST');
    assert.equal((await patch(upload_url, 0, bytes.subarray(0, 5000))).status, 204);
    const wrong = await patch(upload_url, 5000, bytes.subarray(5000, 10_000), { 'upload-checksum': `sha256 ${sha256Base64(new Uint8Array(5))}` });
    assert.equal(wrong.status, 460);
    assert.equal(wrong.headers.get('tus-resumable'), '1.0.0');
    assert.equal((await wrong.json()).code, 'UPLOAD_CHECKSUM_MISMATCH');
    assert.equal((await head(upload_url)).headers.get('upload-offset'), '5000');
    assert.equal((await patch(upload_url, 4000, bytes.subarray(4000))).status, 409);
    assert.equal((await patch(upload_url, 5000, bytes.subarray(5000))).status, 204);
    assert.equal((await head(upload_url)).headers.get('upload-offset'), '20000');
  });

  test('one upload, one way: once appends began, signed_url is refused (403); once a PUT completed, HEAD reports it whole and a PATCH is refused', async () => {
    const first = await issued({ file_size: 10 });
    assert.equal((await patch(first.upload_url, 0, new Uint8Array(4))).status, 204);
    assert.equal((await fetch(first.signed_url, { method: 'PUT', body: new Uint8Array(10) })).status, 403);
    const second = await issued({ file_size: 10 });
    assert.equal((await patch(second.upload_url, 0, new Uint8Array(4), { 'upload-checksum': `sha256 ${sha256Base64(new Uint8Array(1))}` })).status, 460);
    assert.equal((await fetch(second.signed_url, { method: 'PUT', body: new Uint8Array(10) })).status, 200, 'a first append that kept nothing leaves the PUT free');
    assert.equal((await head(second.upload_url)).headers.get('upload-offset'), '10', 'HEAD sees the PUT whole');
    assert.equal((await patch(second.upload_url, 0, new Uint8Array(4))).status, 409);
  });

  test('a wrong sha256 at confirm-file is 422 CHECKSUM_MISMATCH and confirms nothing; the single PUT is hashed too', async () => {
    const bytes = new Uint8Array(randomBytes(30_000));
    const { id, client, signed_url, storage_path } = await issued();
    assert.equal((await fetch(signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes })).status, 200);
    const refused = await client.post(`/assets/${id}/confirm-file`, { storage_path, file_size: bytes.byteLength, sha256: '0'.repeat(64) });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.code, 'CHECKSUM_MISMATCH');
    assert.equal((await client.get(`/assets/${id}`)).body.file, null, 'nothing confirmed');
    const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path, file_size: bytes.byteLength, sha256: sha256Hex(bytes) });
    assert.equal(confirmed.status, 200);
    assert.equal(confirmed.body.file.sha256, sha256Hex(bytes));
  });

  test('over the size: declared at upload-url, at creation and streamed past Upload-Length: 413, nothing kept', async () => {
    const { client, id } = await issued();
    const declared = await client.post(`/assets/${id}/upload-url`, { filename: 'big.zip', file_size: 256 * 1024 + 1 });
    assert.deepEqual([declared.status, declared.body.code, declared.body.details[0].path], [413, 'PAYLOAD_TOO_LARGE', 'file_size']);
    const { upload_url } = await issued({ file_size: 1000 });
    assert.equal((await fetch(upload_url, { method: 'POST', headers: { ...tus, 'upload-length': '500' } })).status, 409, 'another length than declared');
    const over = await patch(upload_url, 0, new Uint8Array(1500));
    assert.equal(over.status, 413);
    assert.equal((await head(upload_url)).headers.get('upload-offset'), '0', 'nothing of the PATCH kept');
    const fresh = await issued();
    assert.equal((await fetch(fresh.upload_url, { method: 'POST', headers: { ...tus, 'upload-length': String(256 * 1024 + 1) } })).status, 413);
  });

  test('termination: DELETE, then the URL answers 404; an expired upload_url 410; a tampered one 403; no Tus-Resumable 412', async () => {
    const { upload_url } = await issued({ file_size: 10 });
    assert.equal((await patch(upload_url, 0, new Uint8Array(4))).status, 204);
    assert.equal((await fetch(upload_url, { method: 'DELETE', headers: tus })).status, 204);
    assert.equal((await head(upload_url)).status, 404);
    assert.equal((await patch(upload_url, 4, new Uint8Array(6))).status, 404);
    const later = await issued({ file_size: 10 });
    assert.equal((await fetch(later.upload_url.replace(/signature=(.)/, (_all, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`), { method: 'HEAD', headers: tus })).status, 403);
    assert.equal((await fetch(later.upload_url, { method: 'HEAD' })).status, 412);
    server.clock.advance(2 * 3600_000 + 1000);
    assert.equal((await head(later.upload_url)).status, 410);
  });
});

describe('resumable uploads from a browser page', () => {
  test('an allowed origin may send and read the tus headers (preflight and answers)', async () => {
    const cors = await startServer({ corsOrigins: ['https://app.example'] });
    try {
      const client = as(cors, cors.seller.token);
      const id = (await client.post('/assets', validAsset())).body.id as string;
      const { upload_url } = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip', file_size: 10 })).body;
      const origin = { origin: 'https://app.example' };
      const preflight = await fetch(upload_url, { method: 'OPTIONS', headers: { ...origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'tus-resumable, upload-offset, content-type' } });
      assert.equal(preflight.status, 204);
      for (const name of ['tus-resumable', 'upload-offset', 'upload-length', 'upload-checksum']) assert.match(preflight.headers.get('access-control-allow-headers')!, new RegExp(`\\b${name}\\b`));
      const probed = await fetch(upload_url, { method: 'HEAD', headers: { ...tus, ...origin } });
      assert.equal(probed.headers.get('access-control-allow-origin'), 'https://app.example');
      assert.match(probed.headers.get('access-control-expose-headers')!, /\bupload-offset\b.*\bupload-length\b/);
    } finally {
      await cors.close();
    }
  });
});

describe('abandoned resumable uploads', () => {
  test('on fs, the sweep removes an abandoned upload’s partial file and state once its URL expired past the grace period', async () => {
    const root = mkdtempSync(join(tmpdir(), 'marketkit-sweep-'));
    const swept = await startServer({ blobs: fsBlobs({ root }) });
    try {
      const client = as(swept, swept.seller.token);
      const id = (await client.post('/assets', validAsset())).body.id as string;
      const { upload_url, storage_path } = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip', file_size: 10_000 })).body;
      assert.equal((await patch(upload_url, 0, new Uint8Array(4000))).status, 204);
      assert.equal(readdirSync(join(root, 'partial')).length, 1, 'the bytes so far wait in a partial file');
      swept.clock.advance(2 * 3600_000 + 3600_000 + 1000);
      assert.equal((await swept.marketplace.maintenance.sweepUploads()).removed, 1);
      assert.deepEqual(readdirSync(join(root, 'partial')), [], 'the partial file is gone');
      assert.equal(await swept.marketplace.ports.uploadStates.get(storage_path), null, 'and its state');
    } finally {
      await swept.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the single PUT with a runtime’s hasher', () => {
  test('nodeHashing() (node:crypto) takes the single PUT’s SHA-256: confirm-file checks and shows it', async () => {
    const hashed = await startServer({ hashing: nodeHashing() });
    try {
      const client = as(hashed, hashed.seller.token);
      const bytes = new Uint8Array(randomBytes(70_000));
      const id = (await client.post('/assets', validAsset())).body.id as string;
      const { signed_url, storage_path } = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' })).body;
      assert.equal((await fetch(signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes })).status, 200);
      assert.equal((await client.post(`/assets/${id}/confirm-file`, { storage_path, file_size: bytes.byteLength, sha256: 'a'.repeat(64) })).status, 422);
      const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path, file_size: bytes.byteLength, sha256: sha256Hex(bytes) });
      assert.equal(confirmed.body.file.sha256, sha256Hex(bytes));
    } finally {
      await hashed.close();
    }
  });
});

describe('a declared size and the quota', () => {
  test('upload-url with a file_size over the remaining quota is 413 STORAGE_QUOTA_EXCEEDED naming file_size', async () => {
    const quota = await startServer({ storageQuotaBytes: 50_000 });
    try {
      const client = as(quota, quota.seller.token);
      const id = (await client.post('/assets', validAsset())).body.id as string;
      const over = await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip', file_size: 50_001 });
      assert.deepEqual([over.status, over.body.code, over.body.details?.[0]?.path], [413, 'STORAGE_QUOTA_EXCEEDED', 'file_size']);
      assert.equal((await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip', file_size: 50_000 })).status, 200);
    } finally {
      await quota.close();
    }
  });
});
