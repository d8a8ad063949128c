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

test('a POST whose server acted but answered 502 is retried with the same Idempotency-Key: the retry gets the one listing', () =>
  withProxy(
    (method, path, index) => (method === 'POST' && path === '/api/v1/assets' && index === 0 ? { forwardThenAnswer: { status: 502 } } : 'forward'),
    async ({ url, log, server }) => {
      const client = createClient({ baseUrl: url, token: server.seller.token, retry: fast });
      const created = await client.createAsset(validAsset({ title: 'Once' }));
      assert.deepEqual(log, ['POST /api/v1/assets', 'POST /api/v1/assets'], 'sent twice');
      const all = await client.listAssets();
      assert.equal(all.pagination.total, 1, 'one listing, not two');
      assert.equal(all.data[0]!.id, created.id, 'the retry answered with the listing the first attempt created');
    },
  ));

test('with idempotencyKeys: false a POST carries no key and a 5xx is not retried: the listing the server did create exists once', () =>
  withProxy(
    (method, path) => (method === 'POST' && path === '/api/v1/assets' ? { forwardThenAnswer: { status: 502 } } : 'forward'),
    async ({ url, log, server }) => {
      const client = createClient({ baseUrl: url, token: server.seller.token, retry: fast, idempotencyKeys: false });
      const error = await client.createAsset(validAsset()).then(() => assert.fail('succeeded'), (error: unknown) => error as MarketKitError);
      assert.ok(error instanceof MarketKitError);
      assert.equal(error.status, 502);
      assert.deepEqual(log, ['POST /api/v1/assets'], 'sent once');
      assert.equal((await client.listAssets()).pagination.total, 1, 'one listing, not two');
    },
  ));

test('an answer cut mid-way on a real socket, after the server created the listing: the retry returns that one listing', () =>
  withProxy(
    (method, path, index) => (method === 'POST' && path === '/api/v1/assets' && index === 0 ? { forwardThenCut: true } : 'forward'),
    async ({ url, log, server }) => {
      const retried: (number | null)[] = [];
      const client = createClient({ baseUrl: url, token: server.seller.token, retry: fast, onRetry: (event) => retried.push(event.status) });
      const created = await client.createAsset(validAsset({ title: 'Cut answer' }));
      assert.deepEqual(retried, [null], 'one retry, after a network error');
      assert.deepEqual(log, ['POST /api/v1/assets', 'POST /api/v1/assets']);
      const all = await client.listAssets();
      assert.deepEqual(all.data.map((asset) => asset.id), [created.id], 'one listing, the one returned');
      assert.equal(created.title, 'Cut answer');
    },
  ));

test('every write of the typed client carries its own fresh Idempotency-Key, the same on each of its retries; reads carry none', async () => {
  const server = await startServer();
  const seen: { method: string; path: string; key: string | null }[] = [];
  let failNext = true;
  const recording: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    seen.push({ method: request.method, path: new URL(request.url).pathname, key: request.headers.get('idempotency-key') });
    if (request.method === 'PATCH' && failNext) {
      failNext = false;
      throw new TypeError('fetch failed');
    }
    return fetch(request);
  };
  try {
    const client = createClient({ baseUrl: server.url, token: server.seller.token, retry: fast, fetch: recording });
    const a = await client.createAsset(validAsset());
    await client.createAsset(validAsset());
    await client.updateAsset(a.id, { title: 'Renamed' });
    await client.getAsset(a.id);
    const body = validAsset();
    const mine = await client.createAsset(body, { idempotencyKey: 'my-own-key-1' });
    assert.deepEqual(await client.createAsset(body, { idempotencyKey: 'my-own-key-1' }), mine, 'the same answer');
    const reused = await client.createAsset(validAsset(), { idempotencyKey: 'my-own-key-1' }).then(
      () => assert.fail('another request under the key ran'),
      (error: unknown) => error as MarketKitError,
    );
    assert.equal(reused.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(reused.status, 422);
    const [post1, post2, patch1, patch2, get, own1, own2, own3] = seen;
    assert.match(post1!.key!, /^[0-9a-f-]{36}$/, 'a UUID');
    assert.notEqual(post1!.key, post2!.key, 'a fresh key per call');
    assert.equal(patch1!.key, patch2!.key, 'the retry of the PATCH sends its key again');
    assert.equal(get!.key, null, 'a read has no key');
    assert.equal(own1!.key, 'my-own-key-1');
    assert.equal(own2!.key, 'my-own-key-1');
    assert.equal(own3!.key, 'my-own-key-1');
    assert.equal(seen.length, 8, 'a 422 is not retried');
    assert.equal((await client.listAssets()).pagination.total, 3, 'the caller’s key twice made one listing');
  } finally {
    await server.close();
  }
});

test('409 IDEMPOTENCY_KEY_IN_USE is waited out (Retry-After) and retried with the same key', () =>
  withProxy(
    (method, path, index) =>
      method === 'POST' && path === '/api/v1/assets' && index === 0
        ? { answer: { status: 409, headers: { 'retry-after': '0' }, body: { error: 'A request with this Idempotency-Key is still running.', code: 'IDEMPOTENCY_KEY_IN_USE' } } }
        : 'forward',
    async ({ url, log, server }) => {
      const client = createClient({ baseUrl: url, token: server.seller.token, retry: fast });
      await client.createAsset(validAsset());
      assert.deepEqual(log, ['POST /api/v1/assets', 'POST /api/v1/assets']);
      assert.equal((await client.listAssets()).pagination.total, 1);
    },
  ));

test('a keyed whole upload called again after its answer was lost uploads once and returns the first confirmation', () =>
  withProxy(
    (method, path, index) => (method === 'POST' && /\/confirm-file$/.test(path) && index === 0 ? { forwardThenCut: true } : 'forward'),
    async ({ url, log, server }) => {
      const client = createClient({ baseUrl: url, token: server.seller.token, retry: { retries: 0 } });
      const created = await client.createAsset(validAsset());
      const bytes = new Uint8Array(3000).fill(7);
      const first = await client.uploadFile(created.id, bytes, { filename: 'pack.zip', idempotencyKey: 'upload-1' }).then(
        () => assert.fail('the cut answer reached the caller'),
        (error: unknown) => error as MarketKitError,
      );
      assert.equal(first.code, 'NETWORK_ERROR', 'without retries the lost answer is the caller’s error');
      // The caller's own retry, with the same key: upload-url replays, the used URL refuses the PUT, confirm replays.
      const again = await client.uploadFile(created.id, bytes, { filename: 'pack.zip', idempotencyKey: 'upload-1' });
      assert.equal(again.file.file_size, 3000);
      assert.equal(log.filter((entry) => entry.endsWith('/upload-url')).length, 2);
      const detail = await client.getAsset(created.id);
      assert.equal(detail.file?.file_size, 3000);
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
