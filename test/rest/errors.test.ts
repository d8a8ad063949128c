import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import {
  as,
  assetWithFile,
  call,
  forceStatus,
  startServer,
  uploadImage,
  validAsset,
  type ApiResponse,
  type TestServer,
} from '../fixtures/server.js';

let server: TestServer;
before(async () => {
  server = await startServer({ maxJsonBytes: 64 * 1024 });
});
after(() => server.close());

/** The error body every refusal carries: `{ error, code }` and nothing else but details. */
function assertError(res: ApiResponse, status: number, code: string, message?: RegExp) {
  assert.equal(res.status, status, `status for ${code}: ${JSON.stringify(res.body)}`);
  assert.equal(res.body.code, code);
  assert.equal(typeof res.body.error, 'string');
  assert.ok(res.body.error.length > 0);
  for (const key of Object.keys(res.body)) assert.ok(['error', 'code', 'details'].includes(key), `unexpected key ${key}`);
  if (message) assert.match(res.body.error, message);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
}

describe('400 INVALID_INPUT names the field', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['a short title', { title: 'ab', slug: 'ok' }, /^title must be 3 to 200 characters$/],
    ['a title of spaces', { title: '     ', slug: 'ok' }, /^title must be 3 to 200 characters$/],
    ['a bad slug', { title: 'Fine', slug: 'Not OK' }, /^slug /],
    ['a missing slug', { title: 'Fine' }, /^slug is required$/],
    ['a negative price', { title: 'Fine', slug: 'ok', pricing_type: 'fixed', price: -1 }, /^price /],
    ['a price with 3 decimals', { title: 'Fine', slug: 'ok', pricing_type: 'fixed', price: 1.234 }, /^price must have at most 2 decimals$/],
    ['a fixed price of 0', { title: 'Fine', slug: 'ok', pricing_type: 'fixed', price: 0 }, /^price must be greater than 0/],
    ['a price on a free listing', { title: 'Fine', slug: 'ok', price: 3 }, /^price must be null or 0 when pricing_type is free$/],
    ['21 tags', { title: 'Fine', slug: 'ok', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, /^tags /],
    ['a 51-character tag', { title: 'Fine', slug: 'ok', tags: ['x'.repeat(51)] }, /^tags\[0\] /],
    ['an unknown visibility', { title: 'Fine', slug: 'ok', visibility: 'secret' }, /^visibility must be one of public, unlisted, private$/],
    ['a read-only field', { title: 'Fine', slug: 'ok', status: 'published' }, /^status is not a field that can be set here$/],
    ['a misspelt field', { titel: 'Fine', title: 'Fine', slug: 'ok' }, /^titel is not a field that can be set here$/],
    ['a download count', { title: 'Fine', slug: 'ok', download_count: 5 }, /^download_count /],
    ['an unknown category', { title: 'Fine', slug: 'ok', category_id: '00000000-0000-4000-8000-000000000000' }, /^category_id must be the id of an existing category$/],
    ['a __proto__ key', JSON.parse('{"title":"Fine","slug":"ok","__proto__":{"status":"published"}}'), /^__proto__ is not a field/],
  ];
  for (const [name, body, message] of cases) {
    test(`create with ${name}`, async () => {
      const res = await as(server, server.seller.token).post('/assets', body);
      assertError(res, 400, 'INVALID_INPUT', message);
      assert.ok(Array.isArray(res.body.details) && res.body.details.length > 0);
      assert.equal(typeof res.body.details[0].path, 'string');
    });
  }

  test('a body that is not JSON', async () => {
    const res = await call(server, 'POST', '/assets', { token: server.seller.token, rawBody: '{"title": ', headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 'INVALID_INPUT', /not valid JSON/);
  });

  test('a JSON body that is not an object', async () => {
    assertError(await as(server, server.seller.token).post('/assets', [1, 2]), 400, 'INVALID_INPUT', /^body must be a JSON object$/);
  });

  test('a body nested a thousand levels deep', async () => {
    const deep = '['.repeat(1000) + ']'.repeat(1000);
    const res = await call(server, 'POST', '/assets', { token: server.seller.token, rawBody: `{"title":"Fine","slug":"ok","tags":${deep}}`, headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 'INVALID_INPUT', /nested/);
  });

  test('nesting is refused past 64 levels, however many brackets a shallow body holds', async () => {
    const post = (tags: string, description = 'Stone walls.') =>
      call(server, 'POST', '/assets', {
        token: server.seller.token,
        rawBody: `{"title":"Deep","slug":"deep-${Math.random().toString(36).slice(2)}","description":${JSON.stringify(description)},"tags":${tags}}`,
        headers: { 'content-type': 'application/json' },
      });
    // The object is level 1: 63 arrays inside it make 64 levels (refused by the schema), 64 make 65 (refused unparsed).
    const atLimit = await post(`${'['.repeat(63)}${']'.repeat(63)}`);
    assert.equal(atLimit.status, 400);
    assert.doesNotMatch(atLimit.body.error, /nested/);
    assertError(await post(`${'['.repeat(64)}${']'.repeat(64)}`), 400, 'INVALID_INPUT', /nested more than 64 levels/);
    // Brackets in strings are text, not nesting.
    const bracketsInText = await post('["castle"]', '{['.repeat(200));
    assert.equal(bracketsInText.status, 201, JSON.stringify(bracketsInText.body));
  });

  test('invalid UTF-8', async () => {
    const res = await call(server, 'POST', '/assets', { token: server.seller.token, rawBody: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]) as BodyInit, headers: { 'content-type': 'application/json' } });
    assertError(res, 400, 'INVALID_INPUT', /UTF-8/);
  });

  test('an empty PATCH', async () => {
    const { id } = await assetWithFile(server, server.seller.token);
    assertError(await as(server, server.seller.token).patch(`/assets/${id}`, {}), 400, 'INVALID_INPUT', /at least one field/);
  });

  test('query parameters out of range, unknown or repeated', async () => {
    const client = as(server, server.seller.token);
    assertError(await client.get('/assets?limit=101'), 400, 'INVALID_INPUT', /^limit /);
    assertError(await client.get('/assets?limit=abc'), 400, 'INVALID_INPUT', /^limit /);
    assertError(await client.get('/assets?offset=-1'), 400, 'INVALID_INPUT', /^offset /);
    assertError(await client.get('/assets?status=live'), 400, 'INVALID_INPUT', /^status must be one of draft/);
    assertError(await client.get('/assets?limit=1&limit=2'), 400, 'INVALID_INPUT', /^limit must be given once$/);
    assertError(await client.get('/assets?stauts=draft'), 400, 'INVALID_INPUT', /^stauts is not a field/);
    assertError(await client.get('/assets?status=%E0%A4%A'), 400, 'INVALID_INPUT', /percent-encoding/);
  });

  test('DELETE /tokens without an id or with a non-UUID id', async () => {
    const client = as(server, server.seller.token);
    assertError(await client.delete('/tokens'), 400, 'INVALID_INPUT', /^id is required$/);
    assertError(await client.delete('/tokens?id=abc'), 400, 'INVALID_INPUT', /^id must be a UUID$/);
  });

  test('PATCH /me with a website that is not http(s), and an unknown social network', async () => {
    const client = as(server, server.seller.token);
    assertError(await client.patch('/me', { website: 'javascript:alert(1)' }), 400, 'INVALID_INPUT', /^website must be an http or https URL/);
    assertError(await client.patch('/me', { socials: { myspace: 'x' } }), 400, 'INVALID_INPUT', /^socials\.myspace is not a field/);
    assertError(await client.patch('/me', { country: 'Germany' }), 400, 'INVALID_INPUT', /^country /);
  });

  test('PATCH /me takes assigned ISO 3166-1 alpha-2 codes only: XX, ZZ, UK and EU are refused naming country, and change nothing', async () => {
    const client = as(server, server.seller.token);
    assert.equal((await client.patch('/me', { country: 'FR' })).body.country, 'FR');
    for (const code of ['XX', 'ZZ', 'UK', 'EU', 'AA']) {
      const refused = await client.patch('/me', { country: code, display_name: 'Not saved' });
      assertError(refused, 400, 'INVALID_INPUT', new RegExp(`^country must be an assigned ISO 3166-1 alpha-2 code such as DE or US; ${code} is not one`));
      assert.equal(refused.body.details[0].path, 'country');
    }
    const after = await client.get('/me');
    assert.deepEqual([after.body.country, after.body.display_name === 'Not saved'], ['FR', false], 'nothing of a refused request was saved');
    for (const code of ['DE', 'US', 'GB', 'AX', 'SS', 'CW']) assert.equal((await client.patch('/me', { country: code })).status, 200, code);
    assert.equal((await client.patch('/me', { country: null })).body.country, null);
  });

  test('batch of 0 or 26 items', async () => {
    const client = as(server, server.seller.token);
    assertError(await client.post('/assets/batch', { assets: [] }), 400, 'INVALID_INPUT', /^assets /);
    assertError(await client.post('/assets/batch', { assets: Array.from({ length: 26 }, () => validAsset()) }), 400, 'INVALID_INPUT', /^assets /);
  });

  test('a refused create loses nothing: the next valid create works and nothing half-made is listed', async () => {
    const seller = await server.account();
    const client = as(server, seller.token);
    await client.post('/assets', { title: 'Fine', slug: 'ok', status: 'published' });
    assert.equal((await client.get('/assets')).body.pagination.total, 0);
    assert.equal((await client.post('/assets', validAsset())).status, 201);
  });
});

describe('401 UNAUTHORIZED', () => {
  const variants: [string, () => Promise<string | null>][] = [
    ['no token', async () => null],
    ['a token with a bad checksum', async () => server.seller.token.slice(0, -1) + (server.seller.token.endsWith('A') ? 'B' : 'A')],
    ['a garbage bearer', async () => 'not-a-token'],
    ['a well-formed token nobody issued', async () => {
      const { formatToken, hasValidChecksum } = await import('../../core/domain/tokens.js');
      const token = formatToken(crypto.getRandomValues(new Uint8Array(64)));
      assert.ok(hasValidChecksum(token), 'the checksum holds, so the look-up is what refuses it');
      return token;
    }],
  ];
  for (const [name, token] of variants) {
    test(name, async () => {
      const res = await as(server, await token()).get('/me');
      assertError(res, 401, 'UNAUTHORIZED');
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    });
  }

  test('an expired token', async () => {
    const account = await server.account();
    const { token } = await server.marketplace.admin.createToken({ accountId: account.id, name: 'short', expiresAt: new Date(server.clock.now() + 60_000) });
    assert.equal((await as(server, token).get('/me')).status, 200);
    server.clock.advance(61_000);
    assertError(await as(server, token).get('/me'), 401, 'UNAUTHORIZED', /expired/);
  });

  test('a revoked token, on its very next request', async () => {
    const account = await server.account();
    assert.equal((await as(server, account.token).delete(`/tokens?id=${account.tokenId}`)).status, 200);
    assertError(await as(server, account.token).get('/me'), 401, 'UNAUTHORIZED');
  });

  test('a token in the query string is ignored', async () => {
    assertError(await call(server, 'GET', `/me?access_token=${server.seller.token}`), 401, 'UNAUTHORIZED');
  });

  test('authentication comes before everything else: a bad body without a token is 401', async () => {
    assertError(await as(server, null).post('/assets', { nope: true }), 401, 'UNAUTHORIZED');
  });
});

describe('403', () => {
  test('FORBIDDEN: a token without the scope (profile:write on PATCH /me), before the body is looked at', async () => {
    const account = await server.account({}, ['profile:read', 'assets:read', 'assets:write']);
    assertError(await as(server, account.token).patch('/me', { bio: 'x' }), 403, 'FORBIDDEN', /profile:write/);
    assertError(await as(server, account.token).patch('/me', { nonsense: 1 }), 403, 'FORBIDDEN');
    assertError(await as(server, account.token).get('/tokens'), 403, 'FORBIDDEN', /tokens:read/);
  });

  test('FORBIDDEN: a read-only token cannot create', async () => {
    const account = await server.account({}, ['assets:read']);
    assertError(await as(server, account.token).post('/assets', validAsset()), 403, 'FORBIDDEN', /assets:write/);
  });

  test('FORBIDDEN: a suspended account, on every authenticated call', async () => {
    const account = await server.account({ is_suspended: true });
    const client = as(server, account.token);
    const answers = [await client.get('/me'), await client.get('/assets'), await client.post('/assets', validAsset()), await client.post('/auth/session', {})];
    for (const res of answers) {
      assertError(res, 403, 'FORBIDDEN', /suspended/);
      // The contract puts RateLimit-* on every authenticated answer, a suspended account's 403 included.
      for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) assert.match(res.headers.get(name) ?? '', /^\d+$/, name);
    }
    assert.ok(Number(answers[1]!.headers.get('ratelimit-remaining')) < Number(answers[0]!.headers.get('ratelimit-remaining')), 'and counted like any call');
    const rpc = await fetch(`${server.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_my_profile', arguments: {} } }),
    });
    const result = (await rpc.json()).result;
    assert.deepEqual([result.isError, result.structuredContent.code], [true, 'FORBIDDEN']);
    assert.match(rpc.headers.get('ratelimit-remaining') ?? '', /^\d+$/, 'the MCP answer carries RateLimit-* too');
  });

  test('NOT_A_SELLER for create and batch, before input validation', async () => {
    for (const seller_status of ['none', 'pending'] as const) {
      const account = await server.account({ seller_status });
      assertError(await as(server, account.token).post('/assets', validAsset()), 403, 'NOT_A_SELLER');
      assertError(await as(server, account.token).post('/assets', { bad: true }), 403, 'NOT_A_SELLER');
      assertError(await as(server, account.token).post('/assets/batch', { assets: [validAsset()] }), 403, 'NOT_A_SELLER');
    }
  });

  test('ACCOUNT_RESTRICTED for create and batch', async () => {
    const account = await server.account({ is_restricted: true });
    assertError(await as(server, account.token).post('/assets', validAsset()), 403, 'ACCOUNT_RESTRICTED');
    assertError(await as(server, account.token).post('/assets/batch', { assets: [validAsset()] }), 403, 'ACCOUNT_RESTRICTED');
  });
});

describe('404 NOT_FOUND', () => {
  test('a missing asset and another seller’s asset are indistinguishable', async () => {
    const { id } = await assetWithFile(server, server.other.token);
    const client = as(server, server.seller.token);
    const missing = await client.get('/assets/00000000-0000-4000-8000-000000000000');
    const foreign = await client.get(`/assets/${id}`);
    assertError(missing, 404, 'NOT_FOUND');
    assertError(foreign, 404, 'NOT_FOUND');
    assert.deepEqual(foreign.body, missing.body);
    for (const res of [
      await client.patch(`/assets/${id}`, { title: 'Mine now' }),
      await client.delete(`/assets/${id}`),
      await client.post(`/assets/${id}/upload-url`, { filename: 'x.zip' }),
      await client.post(`/assets/${id}/images/upload-url`, { filename: 'x.png' }),
      await client.post(`/assets/${id}/confirm-file`, { storage_path: 'x', file_size: 1 }),
      await client.post(`/assets/${id}/confirm-image`, { public_url: 'x' }),
      await client.post(`/assets/${id}/submit`),
    ]) {
      assertError(res, 404, 'NOT_FOUND');
    }
    assert.equal((await as(server, server.other.token).get(`/assets/${id}`)).body.title, 'Castle Pack', 'the owner’s listing is untouched');
  });

  test('a malformed id is a listing that does not exist', async () => {
    assertError(await as(server, server.seller.token).get('/assets/not-a-uuid'), 404, 'NOT_FOUND');
  });

  test('another account’s token cannot be revoked', async () => {
    assertError(await as(server, server.seller.token).delete(`/tokens?id=${server.other.tokenId}`), 404, 'NOT_FOUND');
    assert.equal((await as(server, server.other.token).get('/me')).status, 200);
  });

  test('an unknown route', async () => {
    assertError(await call(server, 'GET', '/nothing-here'), 404, 'NOT_FOUND');
    assertError(await call(server, 'GET', `${server.url}/elsewhere`), 404, 'NOT_FOUND');
  });
});

test('405 METHOD_NOT_ALLOWED names the allowed methods', async () => {
  const res = await call(server, 'PUT', '/assets', { token: server.seller.token });
  assertError(res, 405, 'METHOD_NOT_ALLOWED');
  assert.equal(res.headers.get('allow'), 'GET, HEAD, POST');
  const withParameter = await call(server, 'PUT', `/assets/${crypto.randomUUID()}`, { token: server.seller.token });
  assertError(withParameter, 405, 'METHOD_NOT_ALLOWED');
  assert.equal(withParameter.headers.get('allow'), 'GET, HEAD, PATCH, DELETE');
});

test('a trailing slash names the same endpoint, with or without a path parameter', async () => {
  // Plain fetch: these paths are not the document's, which the fixture's client holds answers to.
  const created = await as(server, server.seller.token).post('/assets', validAsset());
  const send = async (method: string, path: string) => {
    const res = await fetch(`${server.url}/api/v1${path}`, { method, headers: { authorization: `Bearer ${server.seller.token}` } });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  assert.equal((await send('GET', '/me/')).body.id, server.seller.id);
  assert.equal((await send('GET', `/assets/${created.body.id}//`)).body.id, created.body.id);
  assert.equal((await send('GET', '/assets/?limit=1')).body.pagination.limit, 1);
  const wrongMethod = await send('PUT', '/me/');
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get('allow'), 'GET, HEAD, PATCH');
  // A prefix of a route is not that route.
  assert.equal((await send('GET', '/assetsx')).body.code, 'NOT_FOUND');
  assert.equal((await send('GET', `/assets/${created.body.id}/nothing`)).body.code, 'NOT_FOUND');
});

test('a named path beats a parameter in its place; a parameter takes the segment when the named path lacks the method; no segment is empty', async () => {
  const send = async (method: string, path: string) => {
    const res = await fetch(`${server.url}/api/v1${path}`, { method, headers: { authorization: `Bearer ${server.seller.token}` } });
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
  // GET /assets/counts is its own endpoint, not the listing whose id is "counts".
  const counts = await send('GET', '/assets/counts');
  assert.equal(counts.status, 200);
  assert.equal(typeof counts.body.total, 'number');
  // /assets/batch answers POST only: a GET reads the listing "batch" (there is none), a PATCH changes it.
  assert.equal((await send('GET', '/assets/batch')).body.code, 'NOT_FOUND');
  assert.equal((await send('PATCH', '/assets/batch')).status, 400, 'PATCH /assets/{id} with no body');
  // Two parameters, then a named segment, under a named one (webhooks/{id}/deliveries/{delivery_id}/redeliver).
  const id = crypto.randomUUID();
  assert.equal((await send('POST', `/webhooks/${id}/deliveries/${crypto.randomUUID()}/redeliver`)).body.code, 'NOT_FOUND');
  const wrong = await send('GET', `/webhooks/${id}/deliveries/${crypto.randomUUID()}/redeliver`);
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get('allow'), 'POST');
  // An empty segment is no parameter: not the listing, and no route.
  for (const path of ['/assets//submit', `//assets/${id}`, '/webhooks//deliveries']) assert.equal((await send('POST', path)).body.code, 'NOT_FOUND', path);
});

describe('409', () => {
  test('CONFLICT: a duplicate slug, on create and on PATCH', async () => {
    const client = as(server, server.seller.token);
    const first = await client.post('/assets', validAsset());
    assertError(await client.post('/assets', validAsset({ slug: first.body.slug })), 409, 'CONFLICT', /slug/);
    assertError(await as(server, server.other.token).post('/assets', validAsset({ slug: first.body.slug })), 409, 'CONFLICT', /slug/);
    const second = await client.post('/assets', validAsset());
    assertError(await client.patch(`/assets/${second.body.id}`, { slug: first.body.slug }), 409, 'CONFLICT');
  });

  test('CONFLICT: an eleventh image', async () => {
    const { id } = await assetWithFile(server, server.seller.token);
    for (let i = 0; i < 10; i++) assert.equal((await uploadImage(server, server.seller.token, id)).status, 201);
    assertError(await uploadImage(server, server.seller.token, id), 409, 'CONFLICT', /10 images/);
  });

  test('INVALID_STATUS: submitting or changing a pending listing', async () => {
    const { id } = await assetWithFile(server, server.seller.token);
    const client = as(server, server.seller.token);
    await client.post(`/assets/${id}/submit`);
    assertError(await client.post(`/assets/${id}/submit`), 409, 'INVALID_STATUS');
    assertError(await client.patch(`/assets/${id}`, { title: 'Changed' }), 409, 'INVALID_STATUS');
    assertError(await client.post(`/assets/${id}/upload-url`, { filename: 'v2.zip' }), 409, 'INVALID_STATUS');
  });

  test('NOT_DRAFT: deleting a listing that is not a draft', async () => {
    const { id } = await assetWithFile(server, server.seller.token);
    await as(server, server.seller.token).post(`/assets/${id}/submit`);
    assertError(await as(server, server.seller.token).delete(`/assets/${id}`), 409, 'NOT_DRAFT');
  });

  test('LISTING_IS_LIVE: a new file for a published listing', async () => {
    const { id } = await assetWithFile(server, server.seller.token);
    await forceStatus(server, id, 'published');
    assertError(await as(server, server.seller.token).post(`/assets/${id}/upload-url`, { filename: 'v2.zip' }), 409, 'LISTING_IS_LIVE');
  });

  test('PAYOUTS_REQUIRED: submitting a paid listing, or making a published one paid, without payouts', async () => {
    const account = await server.account({ payouts_connected: false });
    const { id } = await assetWithFile(server, account.token, { pricing_type: 'fixed', price: 5 });
    assertError(await as(server, account.token).post(`/assets/${id}/submit`), 409, 'PAYOUTS_REQUIRED');
    const free = await assetWithFile(server, account.token);
    assert.equal((await as(server, account.token).post(`/assets/${free.id}/submit`)).status, 200, 'a free listing needs no payouts');
    await forceStatus(server, free.id, 'published');
    assertError(await as(server, account.token).patch(`/assets/${free.id}`, { pricing_type: 'pwyw', price: 2 }), 409, 'PAYOUTS_REQUIRED');
  });

  test('PRECONDITION_FAILED: scheduling without the plan feature', async () => {
    const account = await server.account({ plan_features: [] });
    const at = new Date(server.clock.now() + 3_600_000).toISOString();
    assertError(await as(server, account.token).post('/assets', validAsset({ scheduled_publish_at: at })), 409, 'PRECONDITION_FAILED', /scheduled_publishing/);
    const created = await as(server, account.token).post('/assets', validAsset());
    assertError(await as(server, account.token).patch(`/assets/${created.body.id}`, { scheduled_publish_at: at }), 409, 'PRECONDITION_FAILED');
  });
});

describe('413 and 415', () => {
  test('PAYLOAD_TOO_LARGE: a JSON body over the limit', async () => {
    const res = await as(server, server.seller.token).post('/assets', { title: 'Fine', slug: 'ok', description: 'x'.repeat(70 * 1024) });
    assertError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('UNSUPPORTED_MEDIA_TYPE: an explicit non-JSON content type; none at all is accepted', async () => {
    const form = await call(server, 'POST', '/assets', { token: server.seller.token, rawBody: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assertError(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const bare = await fetch(`${server.api}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.seller.token}` },
      body: new Blob([JSON.stringify(validAsset())]),
    });
    assert.equal(bare.status, 201);
  });
});

test('422 NO_FILE: submit without a confirmed file', async () => {
  const created = await as(server, server.seller.token).post('/assets', validAsset());
  assertError(await as(server, server.seller.token).post(`/assets/${created.body.id}/submit`), 422, 'NO_FILE');
});

test('503 on /health when a store does not answer, with no internal detail', async () => {
  const storage = memoryStorage();
  const failing = await startServer({
    storage: { ...storage, ping: async () => { throw new Error('database file /secret/path is locked'); } },
    blobs: memoryBlobs(),
  });
  try {
    const res = await call(failing, 'GET', '/health');
    assert.equal(res.status, 503);
    assert.deepEqual(res.body, { status: 'degraded', version: res.body.version, checks: { storage: 'error', blobs: 'ok' } });
    assert.ok(!JSON.stringify(res.body).includes('secret'));
  } finally {
    await failing.close();
  }
});
