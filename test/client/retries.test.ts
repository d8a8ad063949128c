import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createClient, MarketKitError } from '../../client/index.js';
import { startServer, validAsset } from '../fixtures/server.js';
import { startFaultProxy, type Decision } from './fault-proxy.js';

const fast = { baseDelayMs: 5, maxDelayMs: 20 };

async function withProxy(decide: (method: string, path: string, index: number) => Decision, run: (ctx: { url: string; log: string[]; server: Awaited<ReturnType<typeof startServer>> }) => Promise<void>) {
  const server = await startServer();
  const proxy = await startFaultProxy(server.url, decide);
  try {
    await run({ url: proxy.url, log: proxy.log, server });
  } finally {
    await proxy.close();
    await server.close();
  }
}

test('a 429 is retried after its Retry-After, also for a POST, and the call then succeeds', () =>
  withProxy(
    (method, path, index) => (method === 'POST' && path === '/api/v1/assets' && index === 0 ? { answer: { status: 429, headers: { 'retry-after': '1' } } } : 'forward'),
    async ({ url, log, server }) => {
      const retries: number[] = [];
      const client = createClient({ baseUrl: url, token: server.seller.token, retry: fast, onRetry: (event) => retries.push(event.delayMs) });
      const started = performance.now();
      const created = await client.createAsset(validAsset());
      const waited = performance.now() - started;
      assert.equal(created.status, 'draft');
      assert.deepEqual(log, ['POST /api/v1/assets', 'POST /api/v1/assets']);
      assert.deepEqual(retries, [1000], 'the delay is the server’s Retry-After, not the backoff');
      assert.ok(waited >= 950, `waited ${Math.round(waited)} ms for Retry-After: 1`);
      assert.equal((await client.listAssets()).pagination.total, 1);
    },
  ));

test('a 429 whose Retry-After is longer than the client will wait is thrown at once, with retryAfterSeconds', () =>
  withProxy(
    () => ({ answer: { status: 429, headers: { 'retry-after': '3600' } } }),
    async ({ url, log, server }) => {
      const client = createClient({ baseUrl: url, token: server.seller.token, retry: fast });
      const error = await client.listAssets().then(() => assert.fail('succeeded'), (error: unknown) => error as MarketKitError);
      assert.ok(error instanceof MarketKitError);
      assert.equal(error.status, 429);
      assert.equal(error.code, 'RATE_LIMITED');
      assert.equal(error.retryAfterSeconds, 3600);
      assert.equal(log.length, 1);
    },
  ));

test('a 5xx on an idempotent call (GET, DELETE) is retried with backoff until it succeeds', () =>
  withProxy(
    (method, _path, index) => ((method === 'GET' || method === 'DELETE') && index < 2 ? { answer: { status: 503 } } : 'forward'),
    async ({ url, log, server }) => {
      const client = createClient({ baseUrl: url, token: server.seller.token, retry: fast });
      const created = await client.createAsset(validAsset());
      assert.equal((await client.getAsset(created.id)).id, created.id);
      assert.deepEqual(await client.deleteAsset(created.id), { success: true, id: created.id });
      assert.equal(log.filter((entry) => entry.startsWith('GET')).length, 3, 'two 503s, then the answer');
      assert.equal(log.filter((entry) => entry.startsWith('DELETE')).length, 3);
    },
  ));

test('a 5xx on a non-idempotent call (POST) is not retried: the listing the server did create exists once', () =>
  withProxy(
    (method, path) => (method === 'POST' && path === '/api/v1/assets' ? { forwardThenAnswer: { status: 502 } } : 'forward'),
    async ({ url, log, server }) => {
      const client = createClient({ baseUrl: url, token: server.seller.token, retry: fast });
      const error = await client.createAsset(validAsset()).then(() => assert.fail('succeeded'), (error: unknown) => error as MarketKitError);
      assert.ok(error instanceof MarketKitError);
      assert.equal(error.status, 502);
      assert.deepEqual(log, ['POST /api/v1/assets'], 'sent once');
      assert.equal((await client.listAssets()).pagination.total, 1, 'one listing, not two');
    },
  ));

test('retries give up after the configured number and throw the last error', () =>
  withProxy(
    () => ({ answer: { status: 500, body: { error: 'Internal error; retry.', code: 'INTERNAL_ERROR' } } }),
    async ({ url, log, server }) => {
      const client = createClient({ baseUrl: url, token: server.seller.token, retry: { ...fast, retries: 2 } });
      const error = await client.listAssets().then(() => assert.fail('succeeded'), (error: unknown) => error as MarketKitError);
      assert.equal(error.code, 'INTERNAL_ERROR');
      assert.equal(error.status, 500);
      assert.equal(log.length, 3, 'the first attempt and two retries');
      const noRetry = createClient({ baseUrl: url, token: server.seller.token, retry: false });
      await assert.rejects(noRetry.listAssets(), MarketKitError);
      assert.equal(log.length, 4);
    },
  ));

test('a failed PUT to the signed URL is sent again from bytes, but not from a stream, which cannot be read twice', async () => {
  const server = await startServer();
  const proxy = await startFaultProxy(
    server.url,
    (method, path, index) => (method === 'PUT' && path.startsWith('/api/v1/blobs/') && index === 0 ? { answer: { status: 503 } } : 'forward'),
    { preserveHost: true },
  );
  try {
    const client = createClient({ baseUrl: proxy.url, token: server.seller.token, retry: fast });
    const asset = await client.createAsset(validAsset());
    const confirmed = await client.uploadFile(asset.id, new Uint8Array(10_000), { filename: 'pack.zip' });
    assert.equal(confirmed.file.file_size, 10_000);
    assert.equal(proxy.log.filter((entry) => entry.startsWith('PUT')).length, 2, 'the 503, then the upload');

    const stream = new ReadableStream<Uint8Array>({ start: (controller) => (controller.enqueue(new Uint8Array(10)), controller.close()) });
    const error = await client.uploadFile(asset.id, stream, { filename: 'again.zip' }).then(() => assert.fail('succeeded'), (error: unknown) => error as MarketKitError);
    assert.ok(error instanceof MarketKitError);
    assert.equal(error.status, 503);
    assert.equal(proxy.log.filter((entry) => entry.startsWith('PUT')).length, 3, 'the stream’s PUT (to a new upload path) failed once and was not sent again');
    assert.equal((await client.getAsset(asset.id)).file?.file_size, 10_000, 'the confirmed file is still the first one');
  } finally {
    await proxy.close();
    await server.close();
  }
});
