/**
 * The REST upload flow on the S3 adapter: the client's PUT goes straight to a real S3 server
 * (s3rver, its own process), never through the marketplace; the objects land in the bucket, and
 * replacing or deleting leaves none behind.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ClockPort } from '../../core/ports/clock.js';
import { s3Blobs, type S3Blobs } from '../../adapters/s3/index.js';
import { as, startServer, validAsset, webpBytes, type TestServer } from '../fixtures/server.js';
import { s3rverCredentials, startS3Server, type S3Server } from '../fixtures/s3.js';
import { verifyPresignedUrl } from '../fixtures/sigv4.js';

let s3: S3Server;
before(async () => {
  s3 = await startS3Server();
});
after(() => s3.stop());

interface S3Marketplace {
  server: TestServer;
  blobs: S3Blobs;
  /** The clock of the marketplace and of the adapter: real time, by which s3rver judges expiry. */
  clock: ClockPort;
  /** The object keys under this marketplace's prefix. */
  keys(under?: string): string[];
}

async function s3Marketplace(t: { after(fn: () => Promise<void>): void }, options: Parameters<typeof startServer>[0] = {}): Promise<S3Marketplace> {
  const clock: ClockPort = { now: () => Date.now() };
  const blobs = s3Blobs({ endpoint: s3.endpoint, bucket: s3.bucket, pathStyle: true, prefix: `flow-${crypto.randomUUID()}`, ...s3rverCredentials, clock, env: {} });
  const server = await startServer({ blobs, clock, ...options });
  t.after(() => server.close());
  return { server, blobs, clock, keys: (under = '') => s3.keys(blobs.settings.prefix + under) };
}

const put = (url: string, body: Uint8Array, contentType = 'application/zip') => fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, body: body as BodyInit });

async function draft(server: TestServer): Promise<string> {
  const created = await as(server, server.seller.token).post('/assets', validAsset());
  assert.equal(created.status, 201);
  return created.body.id;
}

describe('the upload flow on S3', () => {
  test('upload-url, PUT straight to the S3 server, confirm-file, an image, confirm-image, submit -> pending; the objects are in the bucket', async (t) => {
    const { server, blobs, clock, keys } = await s3Marketplace(t);
    const client = as(server, server.seller.token);
    const id = await draft(server);

    const before = clock.now();
    const issued = await client.post(`/assets/${id}/upload-url`, { filename: 'Castle Pack.zip' });
    assert.equal(issued.status, 200);
    const signed = new URL(issued.body.signed_url);
    assert.equal(signed.origin, s3.endpoint, 'the client PUTs to the S3 server');
    assert.notEqual(signed.origin, new URL(server.url).origin, 'not to the marketplace');
    assert.equal(signed.pathname, `/${s3.bucket}/${blobs.keyOf(`staging/${issued.body.storage_path}`)}`, 'the URL names a staging key, never the storage path');
    const expiresAt = Date.parse(issued.body.expires_at);
    assert.ok(expiresAt >= Math.floor((before + 7200_000) / 1000) * 1000 && expiresAt <= clock.now() + 7200_000, 'expires in 2 hours');
    assert.equal(Date.parse(signed.searchParams.get('X-Amz-Date')!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z')) + Number(signed.searchParams.get('X-Amz-Expires')) * 1000, expiresAt, 'the store refuses it exactly at expires_at');
    assert.equal(
      await verifyPresignedUrl(issued.body.signed_url, { method: 'PUT', credentials: s3rverCredentials, region: 'us-east-1', now: clock.now() }),
      'ok',
      'the URL verifies under an independent SigV4 implementation',
    );

    const bytes = crypto.getRandomValues(new Uint8Array(48_000));
    const uploaded = await put(issued.body.signed_url, bytes);
    assert.equal(uploaded.status, 200, await uploaded.clone().text());
    assert.deepEqual(keys(`staging/assets/${id}/`), [blobs.keyOf(`staging/${issued.body.storage_path}`)], 'the object is in the bucket, staged');
    assert.deepEqual(keys(`assets/${id}/`), []);

    const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: bytes.byteLength });
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.file.file_size, 48_000);
    assert.equal(confirmed.body.file.content_type, 'application/zip', 'the content type the client sent, as the store kept it');
    assert.deepEqual(keys(`assets/${id}/`), [blobs.keyOf(issued.body.storage_path)], 'confirm moved it to the storage path');
    assert.deepEqual(keys(`staging/assets/${id}/`), []);

    const image = await client.post(`/assets/${id}/images/upload-url`, { filename: 'cover.webp' });
    assert.equal(new URL(image.body.signed_url).origin, s3.endpoint);
    assert.equal((await put(image.body.signed_url, webpBytes, 'image/webp')).status, 200);
    const registered = await client.post(`/assets/${id}/confirm-image`, { public_url: image.body.public_url });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    assert.equal(registered.body.is_primary, true);

    // Without a public base URL, the image URL is the marketplace's, and it redirects to a
    // short-lived signed GET on the store: the bytes do not pass through the marketplace.
    assert.ok(image.body.public_url.startsWith(`${server.url}/api/v1/blobs/`));
    const redirect = await fetch(image.body.public_url, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    const location = new URL(redirect.headers.get('location')!);
    assert.equal(location.origin, s3.endpoint);
    assert.equal(location.searchParams.get('response-content-type'), 'image/webp');
    assert.equal(location.searchParams.get('X-Amz-Expires'), '600');
    assert.equal(await verifyPresignedUrl(location.href, { method: 'GET', credentials: s3rverCredentials, region: 'us-east-1', now: clock.now() }), 'ok');
    const served = await fetch(image.body.public_url);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/webp');
    assert.deepEqual(new Uint8Array(await served.arrayBuffer()), webpBytes);

    const submitted = await client.post(`/assets/${id}/submit`);
    assert.deepEqual([submitted.status, submitted.body.status], [200, 'pending']);
    assert.equal(keys(`assets/${id}/`).length, 2, 'the file and the image');
  });

  test('an image that is not WebP, PNG or JPEG is refused at confirm-image, by its first bytes read from the bucket', async (t) => {
    const { server } = await s3Marketplace(t);
    const client = as(server, server.seller.token);
    const id = await draft(server);
    const image = await client.post(`/assets/${id}/images/upload-url`, { filename: 'cover.png' });
    assert.equal((await put(image.body.signed_url, new TextEncoder().encode('<svg>not an image</svg>'), 'image/png')).status, 200);
    const refused = await client.post(`/assets/${id}/confirm-image`, { public_url: image.body.public_url });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /public_url is not a WebP, PNG or JPEG image/);
  });

  test('an image put in the bucket with a false content type is refused at confirm-image; with its own type it is served as its bytes are', async (t) => {
    const { server } = await s3Marketplace(t);
    const client = as(server, server.seller.token);
    const id = await draft(server);
    const image = await client.post(`/assets/${id}/images/upload-url`, { filename: 'cover.webp' });
    // S3 takes any type the presigned PUT carries; confirm-image checks it against the bytes.
    assert.equal((await put(image.body.signed_url, webpBytes, 'text/html')).status, 200);
    const refused = await client.post(`/assets/${id}/confirm-image`, { public_url: image.body.public_url });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /^public_url was uploaded as text\/html, but its bytes are image\/webp/);
    assert.equal((await fetch(image.body.public_url)).status, 404, 'nothing of it is served');
    const again = await client.post(`/assets/${id}/images/upload-url`, { filename: 'cover.webp' });
    assert.equal((await put(again.body.signed_url, webpBytes, 'image/webp')).status, 200);
    assert.equal((await client.post(`/assets/${id}/confirm-image`, { public_url: again.body.public_url })).status, 201);
    const served = await fetch(again.body.public_url);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), 'image/webp');
  });

  test('a wrong size at confirm-file is a 400 naming file_size and the size stored', async (t) => {
    const { server } = await s3Marketplace(t);
    const client = as(server, server.seller.token);
    const id = await draft(server);
    const issued = await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' });
    assert.equal((await put(issued.body.signed_url, new Uint8Array(1000))).status, 200);
    const refused = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: 999 });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'INVALID_INPUT');
    assert.match(refused.body.error, /file_size must equal the size of the uploaded file \(1000 bytes\)/);
    const missing = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.body.storage_path.replace('pack.zip', 'other.zip'), file_size: 1000 });
    assert.equal(missing.status, 400);
  });

  test('a file over the limit gets past the presigned PUT (S3 cannot bound it) but confirm-file refuses it with 413 and removes the object', async (t) => {
    const { server, keys } = await s3Marketplace(t, { maxFileBytes: 4096, maxImageBytes: 64 });
    const client = as(server, server.seller.token);
    const id = await draft(server);
    const issued = await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' });
    assert.equal((await put(issued.body.signed_url, new Uint8Array(5000))).status, 200, 'the store takes it');
    const refused = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: 5000 });
    assert.equal(refused.status, 413);
    assert.equal(refused.body.code, 'PAYLOAD_TOO_LARGE');
    assert.match(refused.body.error, /at most 4096 bytes/);
    assert.deepEqual(keys(`assets/${id}/`), [], 'the oversized object is gone');

    const image = await client.post(`/assets/${id}/images/upload-url`, { filename: 'big.webp' });
    assert.equal((await put(image.body.signed_url, new Uint8Array([...webpBytes, ...new Uint8Array(100)]), 'image/webp')).status, 200);
    const refusedImage = await client.post(`/assets/${id}/confirm-image`, { public_url: image.body.public_url });
    assert.equal(refusedImage.status, 413);
    assert.deepEqual(keys(`assets/${id}/`), []);
    assert.equal((await client.get(`/assets/${id}`)).body.file, null);
  });

  test('an expired upload URL is refused by the S3 server', async (t) => {
    const { server, clock } = await s3Marketplace(t, { uploadUrlTtlSeconds: 2 });
    const client = as(server, server.seller.token);
    const id = await draft(server);
    const early = await client.post(`/assets/${id}/upload-url`, { filename: 'early.zip' });
    const late = await client.post(`/assets/${id}/upload-url`, { filename: 'late.zip' });
    assert.equal((await put(early.body.signed_url, new Uint8Array(10))).status, 200, 'accepted while valid');
    // Until a little past the expiry the marketplace announced, by the real clock s3rver keeps.
    await new Promise((resolve) => setTimeout(resolve, Date.parse(late.body.expires_at) + 300 - Date.now()));
    const refused = await put(late.body.signed_url, new Uint8Array(10));
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /expired/i);
    assert.equal(await verifyPresignedUrl(late.body.signed_url, { method: 'PUT', credentials: s3rverCredentials, region: 'us-east-1', now: clock.now() }), 'expired');
  });

  test('a new confirmed file replaces the old one and its object is removed', async (t) => {
    const { server, blobs, keys } = await s3Marketplace(t);
    const client = as(server, server.seller.token);
    const id = await draft(server);
    const paths: string[] = [];
    for (const size of [100, 200]) {
      const issued = await client.post(`/assets/${id}/upload-url`, { filename: `v${size}.zip` });
      assert.equal((await put(issued.body.signed_url, new Uint8Array(size))).status, 200);
      assert.equal((await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.body.storage_path, file_size: size })).status, 200);
      paths.push(issued.body.storage_path);
    }
    assert.deepEqual(keys(`assets/${id}/`), [blobs.keyOf(paths[1]!)], 'only the confirmed file is left');
    assert.equal((await client.get(`/assets/${id}`)).body.file.file_size, 200);
  });

  test('deleting a draft removes its file, its images and uploads never confirmed from the bucket', async (t) => {
    const { server, keys } = await s3Marketplace(t);
    const client = as(server, server.seller.token);
    const id = await draft(server);
    const keep = await draft(server);
    for (const assetId of [id, keep]) {
      const file = await client.post(`/assets/${assetId}/upload-url`, { filename: 'pack.zip' });
      await put(file.body.signed_url, new Uint8Array(64));
      await client.post(`/assets/${assetId}/confirm-file`, { storage_path: file.body.storage_path, file_size: 64 });
    }
    const image = await client.post(`/assets/${id}/images/upload-url`, { filename: 'cover.webp' });
    await put(image.body.signed_url, webpBytes, 'image/webp');
    assert.equal((await client.post(`/assets/${id}/confirm-image`, { public_url: image.body.public_url })).status, 201);
    const unconfirmed = await client.post(`/assets/${id}/upload-url`, { filename: 'never-confirmed.zip' });
    await put(unconfirmed.body.signed_url, new Uint8Array(32));
    assert.equal(keys(`assets/${id}/`).length, 2, 'the confirmed file and image');
    assert.equal(keys(`staging/assets/${id}/`).length, 1, 'the upload never confirmed');

    const deleted = await client.delete(`/assets/${id}`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(keys(`assets/${id}/`), [], 'no orphan objects');
    assert.deepEqual(keys(`staging/assets/${id}/`), [], 'no orphan staged objects');
    assert.equal(keys(`assets/${keep}/`).length, 1, "another listing's file stays");
  });

  test('health reports the bucket, and a store that does not answer makes it degraded', async (t) => {
    const { server } = await s3Marketplace(t);
    const healthy = await fetch(`${server.api}/health`);
    assert.equal(healthy.status, 200);
    assert.equal((await healthy.json()).checks.blobs, 'ok');
    const clock: ClockPort = { now: () => Date.now() };
    const missing = s3Blobs({ endpoint: s3.endpoint, bucket: 'no-such-bucket', pathStyle: true, ...s3rverCredentials, clock, env: {} });
    const degraded = await startServer({ blobs: missing, clock });
    t.after(() => degraded.close());
    const answer = await fetch(`${degraded.api}/health`);
    assert.equal(answer.status, 503);
    assert.equal((await answer.json()).checks.blobs, 'error');
  });
});
