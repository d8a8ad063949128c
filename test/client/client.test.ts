import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { createClient, MarketKitError, type UploadProgress } from '../../client/index.js';
import { fileSource } from '../../bindings/node/index.js';
import { pngBytes, startServer, validAsset, type TestServer } from '../fixtures/server.js';
import { tempDir } from '../fixtures/cli.js';

async function withServer(run: (server: TestServer) => Promise<void>) {
  const server = await startServer();
  try {
    await run(server);
  } finally {
    await server.close();
  }
}

async function refusal(promise: Promise<unknown>): Promise<MarketKitError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof MarketKitError, `a MarketKitError, not ${error}`);
    return error;
  }
  assert.fail('the call succeeded');
}

test('the typed client creates, lists, reads, updates and deletes listings on a real server', () =>
  withServer(async (server) => {
    const client = createClient({ baseUrl: server.url, token: server.seller.token });
    const created = await client.createAsset(validAsset({ title: 'Neon Pack', tags: ['neon'] }));
    assert.equal(created.status, 'draft');
    assert.equal(created.title, 'Neon Pack');
    const page = await client.listAssets({ status: 'draft', limit: 10 });
    assert.deepEqual(page.data.map((asset) => asset.id), [created.id]);
    assert.equal(page.pagination.total, 1);
    const updated = await client.updateAsset(created.id, { description: 'Glowing signs' });
    assert.equal(updated.description, 'Glowing signs');
    const detail = await client.getAsset(created.id);
    assert.equal(detail.file, null);
    assert.deepEqual(detail.images, []);
    assert.deepEqual(await client.deleteAsset(created.id), { success: true, id: created.id });
    assert.equal((await client.listAssets()).pagination.total, 0);
    const profile = await client.getProfile();
    assert.equal(profile.id, server.seller.id);
    assert.equal((await client.health()).status, 'ok');
  }));

test('the base URL may be the site or its /api/v1, with or without a trailing slash', () =>
  withServer(async (server) => {
    for (const baseUrl of [server.url, `${server.url}/`, server.api, `${server.api}/`]) {
      const client = createClient({ baseUrl, token: server.seller.token });
      assert.equal(client.api, server.api);
      assert.equal((await client.getProfile()).id, server.seller.id);
    }
  }));

test('a refusal is one MarketKitError with the status, the code and the field the server named', () =>
  withServer(async (server) => {
    const client = createClient({ baseUrl: server.url, token: server.seller.token });
    const invalid = await refusal(client.createAsset(validAsset({ title: 'x' })));
    assert.equal(invalid.status, 400);
    assert.equal(invalid.code, 'INVALID_INPUT');
    assert.equal(invalid.field, 'title');
    assert.match(invalid.message, /title/);
    assert.ok(invalid.requestId, 'the x-request-id of the answer');

    const others = await createClient({ baseUrl: server.url, token: server.other.token }).createAsset(validAsset());
    const missing = await refusal(client.getAsset(others.id));
    assert.equal(missing.status, 404);
    assert.equal(missing.code, 'NOT_FOUND');
    assert.equal(missing.field, null);

    const anonymous = await refusal(createClient({ baseUrl: server.url }).listAssets());
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.code, 'UNAUTHORIZED');

    const unreachable = await refusal(createClient({ baseUrl: 'http://127.0.0.1:9', token: 'x', retry: false }).listAssets());
    assert.equal(unreachable.status, 0);
    assert.equal(unreachable.code, 'NETWORK_ERROR');
  }));

test('uploadFile does upload-url, the streamed PUT with progress and confirm-file in one call, and the listing can be submitted', () =>
  withServer(async (server) => {
    const client = createClient({ baseUrl: server.url, token: server.seller.token });
    const asset = await client.createAsset(validAsset());
    const bytes = new Uint8Array(300 * 1024).map((_, i) => i % 251);
    const progress: UploadProgress[] = [];
    const confirmed = await client.uploadFile(asset.id, bytes, { filename: 'pack.zip', onProgress: (p) => progress.push(p) });
    assert.equal(confirmed.success, true);
    assert.equal(confirmed.file.file_size, bytes.byteLength);
    assert.equal(confirmed.file.content_type, 'application/zip');
    assert.deepEqual(progress[0], { loaded: 0, total: bytes.byteLength });
    assert.deepEqual(progress.at(-1), { loaded: bytes.byteLength, total: bytes.byteLength });
    assert.ok(progress.length >= 4, `progress along the way (${progress.length} reports)`);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.loaded >= progress[i - 1]!.loaded, 'progress never goes back');
    const stored = await server.marketplace.ports.blobs.get(confirmed.file.storage_path);
    assert.equal(stored?.size, bytes.byteLength);

    const image = await client.uploadImage(asset.id, pngBytes, { filename: 'shot.png' });
    assert.equal(image.is_primary, true);
    assert.equal((await client.getAsset(asset.id)).images.length, 1);
    const submitted = await client.submitAsset(asset.id);
    assert.equal(submitted.status, 'pending');
  }));

test('uploadFile takes a Blob, a stream of unknown length, and a file on disk through fileSource', (t) =>
  withServer(async (server) => {
    const client = createClient({ baseUrl: server.url, token: server.seller.token });
    const asset = await client.createAsset(validAsset());
    const fromBlob = await client.uploadFile(asset.id, new Blob([new Uint8Array(1000)], { type: 'application/zip' }), { filename: 'blob.zip' });
    assert.equal(fromBlob.file.file_size, 1000);

    const chunks = [new Uint8Array(70_000), new Uint8Array(5)];
    const stream = new ReadableStream<Uint8Array>({ pull: (controller) => (chunks.length ? controller.enqueue(chunks.shift()!) : controller.close()) });
    const progress: UploadProgress[] = [];
    const fromStream = await client.uploadFile(asset.id, stream, { filename: 'stream.zip', onProgress: (p) => progress.push(p) });
    assert.equal(fromStream.file.file_size, 70_005, 'confirm-file is told the bytes actually sent');
    assert.deepEqual(progress.at(-1), { loaded: 70_005, total: null });

    const path = join(tempDir(t, 'marketkit-client-'), 'pack.zip');
    writeFileSync(path, new Uint8Array(123_456).fill(7));
    const fromFile = await client.uploadFile(asset.id, await fileSource(path));
    assert.equal(fromFile.file.file_size, 123_456);
    assert.match(fromFile.file.storage_path, /\/pack\.zip$/, 'the file name comes from the path');
    assert.equal((await client.getAsset(asset.id)).file?.storage_path, fromFile.file.storage_path, 'the last upload is the listing file');
  }));

test('an upload refused by the server (an image that is not one) throws the API error and stores nothing as the listing image', () =>
  withServer(async (server) => {
    const client = createClient({ baseUrl: server.url, token: server.seller.token });
    const asset = await client.createAsset(validAsset());
    const error = await refusal(client.uploadImage(asset.id, new TextEncoder().encode('not an image'), { filename: 'fake.png' }));
    assert.equal(error.status, 400);
    assert.equal(error.code, 'INVALID_INPUT');
    assert.deepEqual((await client.getAsset(asset.id)).images, []);
    await assert.rejects(client.uploadFile(asset.id, new Uint8Array(3)), /name the file/, 'bytes have no name of their own');
  }));
