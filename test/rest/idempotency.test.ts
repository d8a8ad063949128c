/**
 * Safe retries on REST (docs/rest.md, "Safe retries"): a write sent again with its Idempotency-Key
 * runs once, and the retry gets the first answer byte for byte.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryStorage } from '../../adapters/memory/index.js';
import { StorageUnavailableError } from '../../core/errors.js';
import { as, call, startServer, validAsset, type TestServer } from '../fixtures/server.js';

let server: TestServer;
before(async () => (server = await startServer()));
after(() => server.close());

/** A raw POST/PATCH/DELETE with a key, the answer's text kept as it came. */
async function send(method: string, path: string, key: string | null, body?: unknown, token = server.seller.token) {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (key !== null) headers['idempotency-key'] = key;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.api}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function listingsWithSlug(slug: string, token = server.seller.token): Promise<number> {
  const page = await as(server, token).get('/assets?limit=100');
  return (page.body.data as { slug: string }[]).filter((asset) => asset.slug === slug).length;
}

let keys = 0;
const freshKey = () => `key-${Date.now()}-${++keys}`;

test('the same key twice creates one listing, and the retry is the first answer byte for byte with Idempotent-Replayed', async () => {
  const key = freshKey();
  const body = validAsset();
  const first = await send('POST', '/assets', key, body);
  const second = await send('POST', '/assets', key, body);
  assert.equal(first.status, 201);
  assert.equal(second.status, 201);
  assert.equal(second.text, first.text);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  assert.equal(second.headers.get('idempotent-replayed'), 'true');
  assert.ok(second.headers.get('ratelimit-remaining'), 'a replay is still an authenticated answer with its RateLimit headers');
  assert.equal(await listingsWithSlug(body.slug), 1);
});

test('the same key on another request is 422 IDEMPOTENCY_KEY_REUSED, and nothing runs', async () => {
  const key = freshKey();
  const body = validAsset();
  assert.equal((await send('POST', '/assets', key, body)).status, 201);
  const other = validAsset();
  const reused = await send('POST', '/assets', key, other);
  assert.equal(reused.status, 422);
  assert.equal(JSON.parse(reused.text).code, 'IDEMPOTENCY_KEY_REUSED');
  assert.equal(await listingsWithSlug(other.slug), 0);
  // Another path with the key is another request too.
  const id = JSON.parse((await send('POST', '/assets', freshKey(), validAsset())).text).id;
  assert.equal((await send('PATCH', `/assets/${id}`, key, { title: 'Another title' })).status, 422);
});

test('50 concurrent requests with one key create one listing; the others get the kept answer or 409 IDEMPOTENCY_KEY_IN_USE', async () => {
  const key = freshKey();
  const body = validAsset();
  const answers = await Promise.all(Array.from({ length: 50 }, () => send('POST', '/assets', key, body)));
  const created = answers.filter((answer) => answer.status === 201);
  const inUse = answers.filter((answer) => answer.status === 409);
  assert.equal(created.length + inUse.length, 50, `only 201 and 409: ${[...new Set(answers.map((a) => a.status))]}`);
  assert.ok(created.length >= 1);
  assert.equal(new Set(created.map((answer) => answer.text)).size, 1, 'every 201 is the one listing');
  for (const answer of inUse) {
    assert.equal(JSON.parse(answer.text).code, 'IDEMPOTENCY_KEY_IN_USE');
    assert.equal(answer.headers.get('retry-after'), '1');
  }
  assert.equal(await listingsWithSlug(body.slug), 1);
  // Once the first has answered, a retry gets its answer.
  const retry = await send('POST', '/assets', key, body);
  assert.equal(retry.text, created[0]!.text);
});

test('keys are per account: another account with the same key runs its own request', async () => {
  const key = freshKey();
  assert.equal((await send('POST', '/assets', key, validAsset())).status, 201);
  const theirs = validAsset();
  const other = await send('POST', '/assets', key, theirs, server.other.token);
  assert.equal(other.status, 201);
  assert.equal(other.headers.get('idempotent-replayed'), null);
  assert.equal(await listingsWithSlug(theirs.slug, server.other.token), 1);
});

test('a key is kept for 24 hours: after that it names a new request', async () => {
  const key = freshKey();
  assert.equal((await send('POST', '/assets', key, validAsset())).status, 201);
  server.clock.advance(24 * 60 * 60 * 1000 - 1);
  assert.equal((await send('POST', '/assets', key, validAsset())).status, 422, 'still kept a millisecond before the day is over');
  server.clock.advance(1);
  const later = await send('POST', '/assets', key, validAsset());
  assert.equal(later.status, 201);
  assert.equal(later.headers.get('idempotent-replayed'), null);
  assert.ok((await server.marketplace.maintenance.purgeRetryKeys()) >= 1, 'the expired keys are purged');
});

test('a validation failure (400) is not kept: the client fixes the body and retries with the same key', async () => {
  const key = freshKey();
  const bad = await send('POST', '/assets', key, { ...validAsset(), title: 'x' });
  assert.equal(bad.status, 400);
  const fixed = validAsset();
  const good = await send('POST', '/assets', key, fixed);
  assert.equal(good.status, 201);
  assert.equal(good.headers.get('idempotent-replayed'), null);
  assert.equal(await listingsWithSlug(fixed.slug), 1);
});

test("an operation's refusal (404, 409) is kept and replayed", async () => {
  const key = freshKey();
  const missing = '00000000-0000-4000-8000-000000000000';
  const first = await send('PATCH', `/assets/${missing}`, key, { title: 'A new title' });
  const second = await send('PATCH', `/assets/${missing}`, key, { title: 'A new title' });
  assert.equal(first.status, 404);
  assert.equal(second.status, 404);
  assert.equal(second.text, first.text);
  assert.equal(second.headers.get('idempotent-replayed'), 'true');
});

test('DELETE and the batch take keys too: a retried delete answers as the first did, a retried batch creates nothing more', async () => {
  const id = JSON.parse((await send('POST', '/assets', freshKey(), validAsset())).text).id;
  const deleteKey = freshKey();
  const deleted = await send('DELETE', `/assets/${id}`, deleteKey);
  const again = await send('DELETE', `/assets/${id}`, deleteKey);
  assert.equal(deleted.status, 200);
  assert.equal(again.status, 200, 'not the 404 a second delete would get');
  assert.equal(again.text, deleted.text);

  const items = [validAsset(), validAsset()];
  const batchKey = freshKey();
  const batch = await send('POST', '/assets/batch', batchKey, { assets: items });
  const retried = await send('POST', '/assets/batch', batchKey, { assets: items });
  assert.equal(batch.status, 207);
  assert.equal(retried.status, 207);
  assert.equal(retried.text, batch.text);
  for (const item of items) assert.equal(await listingsWithSlug(item.slug), 1);
});

test('an Idempotency-Key that is empty, too long or not printable ASCII is 400 naming the header', async () => {
  for (const key of ['x'.repeat(256), 'caf\u00e9', 'tab\there']) {
    const answer = await send('POST', '/assets', key, validAsset());
    assert.equal(answer.status, 400, key);
    const body = JSON.parse(answer.text);
    assert.equal(body.code, 'INVALID_INPUT');
    assert.equal(body.details[0].path, 'Idempotency-Key');
  }
  // An empty header value is a key of length 0.
  const empty = await call(server, 'POST', '/assets', { token: server.seller.token, body: validAsset(), headers: { 'idempotency-key': '' } });
  assert.equal(empty.status, 400);
  // The order of checks: a token without the scope is 403 before the key is looked at.
  const reader = await server.account({}, ['assets:read']);
  assert.equal((await send('POST', '/assets', 'x'.repeat(256), validAsset(), reader.token)).status, 403);
});

test('a GET ignores the header', async () => {
  const answer = await call(server, 'GET', '/me', { token: server.seller.token, headers: { 'idempotency-key': 'x'.repeat(300) } });
  assert.equal(answer.status, 200);
});

test('a 5xx is not kept: the retry with the same key runs again', async () => {
  const storage = memoryStorage();
  let failNext = true;
  const errors: unknown[] = [];
  const flaky = await startServer({
    storage: {
      ...storage,
      async createAsset(asset) {
        if (failNext) {
          failNext = false;
          throw new StorageUnavailableError('the database restarted');
        }
        return storage.createAsset(asset);
      },
    },
    onError: (error) => errors.push(error),
  });
  try {
    const key = freshKey();
    const body = validAsset();
    const post = () => call(flaky, 'POST', '/assets', { token: flaky.seller.token, body, headers: { 'idempotency-key': key } });
    assert.equal((await post()).status, 503);
    const retry = await post();
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('idempotent-replayed'), null);
    assert.equal(errors.length, 1);
  } finally {
    await flaky.close();
  }
});

test('a write done while its store went away before the answer was kept: the answer is kept once the store is back, and a retry replays it, never runs it twice', async () => {
  const storage = memoryStorage();
  let finishFailures = 3;
  const flaky = await startServer({
    storage: {
      ...storage,
      async finishIdempotencyKey(...args) {
        if (finishFailures > 0) {
          finishFailures--;
          throw new StorageUnavailableError('the database restarted');
        }
        return storage.finishIdempotencyKey(...args);
      },
    },
  });
  try {
    const key = freshKey();
    const body = validAsset();
    const post = () => call(flaky, 'POST', '/assets', { token: flaky.seller.token, body, headers: { 'idempotency-key': key } });
    const first = await post();
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(finishFailures, 0, 'the answer was kept after three failed tries, before it went out');
    const retry = await post();
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.body.id, first.body.id);
  } finally {
    await flaky.close();
  }
});
