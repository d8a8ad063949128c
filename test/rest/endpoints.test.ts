import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { as, assetWithFile, call, startServer, uploadImage, validAsset, type TestServer } from '../fixtures/server.js';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** A listing's id: a version-7 UUID, ordered by creation (docs/performance.md, "Ordered ids"). */
const orderedUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const isoMs = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

describe('every endpoint answers its success', () => {
  test('GET /health is 200 ok without a token', async () => {
    const res = await call(server, 'GET', '/health');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok', version: res.body.version, checks: { storage: 'ok', blobs: 'ok' } });
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
  });

  test('GET /me returns the profile of the token', async () => {
    const res = await as(server, server.seller.token).get('/me');
    assert.equal(res.status, 200);
    assert.equal(res.body.id, server.seller.id);
    assert.equal(res.body.is_seller, true);
    assert.equal(res.body.seller_status, 'approved');
    assert.deepEqual(Object.keys(res.body.socials).sort(), ['discord', 'github', 'tiktok', 'twitch', 'twitter', 'website', 'youtube']);
    assert.match(res.body.created_at, isoMs);
  });

  test('PATCH /me changes only the fields sent, socials merged by key', async () => {
    const client = as(server, server.seller.token);
    await client.patch('/me', { socials: { github: 'castle-dev' } });
    const res = await client.patch('/me', { display_name: 'Castle Dev', website: 'https://castle.example', socials: { twitter: '@castle' }, country: 'DE' });
    assert.equal(res.status, 200);
    assert.equal(res.body.display_name, 'Castle Dev');
    assert.equal(res.body.website, 'https://castle.example');
    assert.equal(res.body.country, 'DE');
    assert.equal(res.body.socials.twitter, '@castle');
    assert.equal(res.body.socials.github, 'castle-dev', 'an earlier social link is kept');
    assert.equal((await client.get('/me')).body.display_name, 'Castle Dev');
  });

  test('listings created one after another have ids in the order of creation, stamped with the time', async () => {
    const client = as(server, server.seller.token);
    const created: { id: string }[] = [];
    const began = Date.now();
    for (let n = 0; n < 20; n++) {
      const res = await client.post('/assets', validAsset());
      assert.equal(res.status, 201);
      created.push(res.body);
    }
    const ids = created.map((asset) => asset.id);
    assert.deepEqual([...ids].sort(), ids, 'each id sorts after the one before');
    const ended = Date.now();
    for (const asset of created) {
      // The first 48 bits: milliseconds since the epoch (RFC 9562, version 7), of the real time (this
      // server's clock is a test's fixed one, which created_at shows).
      const stamped = parseInt(asset.id.replace(/-/g, '').slice(0, 12), 16);
      assert.ok(stamped >= began && stamped <= ended + 1, `${asset.id} is stamped between ${began} and ${ended}`);
    }
  });

  test('POST /assets creates a draft with the contract defaults', async () => {
    const res = await as(server, server.seller.token).post('/assets', validAsset({ tags: [' Castle ', 'castle', 'medieval'] }));
    assert.equal(res.status, 201);
    assert.match(res.body.id, orderedUuid);
    assert.equal(res.body.status, 'draft');
    assert.equal(res.body.version, '1.0.0');
    assert.equal(res.body.pricing_type, 'free');
    assert.equal(res.body.is_free, true);
    assert.equal(res.body.visibility, 'public');
    assert.equal(res.body.download_count, 0);
    assert.deepEqual(res.body.tags, ['Castle', 'medieval'], 'tags trimmed, duplicates dropped case-insensitively, order kept');
    assert.deepEqual(Object.keys(res.body).sort(), [
      'category_id', 'created_at', 'description', 'download_count', 'id', 'is_free', 'price', 'pricing_type',
      'scheduled_publish_at', 'slug', 'status', 'tags', 'title', 'updated_at', 'version', 'view_count', 'visibility',
    ]);
  });

  test('GET /assets lists the caller’s listings newest first with pagination', async () => {
    const seller = await server.account();
    const client = as(server, seller.token);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await client.post('/assets', validAsset())).body.id);
      server.clock.advance(1000);
    }
    const res = await client.get('/assets?limit=2');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.map((a: { id: string }) => a.id), [ids[2], ids[1]]);
    const { next_cursor, ...pagination } = res.body.pagination;
    assert.deepEqual(pagination, { limit: 2, offset: 0, total: 3, has_more: true });
    assert.equal(typeof next_cursor, 'string');
    const next = await client.get('/assets?limit=2&offset=2');
    assert.deepEqual(next.body.data.map((a: { id: string }) => a.id), [ids[0]]);
    assert.equal(next.body.pagination.has_more, false);
    assert.equal(next.body.pagination.next_cursor, null, 'null on the last page');
    const byCursor = await client.get(`/assets?limit=2&cursor=${next_cursor}`);
    assert.deepEqual(byCursor.body.data.map((a: { id: string }) => a.id), [ids[0]], 'the cursor continues where the first page ended');
    const drafts = await client.get('/assets?status=draft');
    assert.equal(drafts.body.pagination.total, 3);
    assert.equal((await client.get('/assets?status=changes_requested')).body.pagination.total, 0);
    assert.equal((await client.get('/assets')).body.pagination.limit, 50, 'the default page size is 50');
  });

  test('POST /assets/batch creates each item on its own: 207 with per-item results', async () => {
    const client = as(server, server.seller.token);
    const slug = `batch-${Date.now()}`;
    const res = await client.post('/assets/batch', { assets: [validAsset({ slug }), { title: 'x', slug: 'ok-slug-x' }, validAsset({ slug })] });
    assert.equal(res.status, 207);
    assert.equal(res.body.results[0].status, 201);
    assert.equal(res.body.results[0].asset.slug, slug);
    assert.equal(res.body.results[1].status, 400);
    assert.equal(res.body.results[1].error.code, 'INVALID_INPUT');
    assert.match(res.body.results[1].error.error, /assets\[1\]\.title/);
    assert.deepEqual(res.body.results[2], { index: 2, status: 409, error: res.body.results[2].error });
    assert.equal(res.body.results[2].error.code, 'CONFLICT', 'the later item with a taken slug gets 409');
    assert.deepEqual(res.body.summary, { total: 3, succeeded: 1, failed: 2 });
  });

  test('POST /assets/batch is 422 BATCH_FAILED when every item failed', async () => {
    const res = await as(server, server.seller.token).post('/assets/batch', { assets: [{ title: 'no' }, { slug: 'UPPER' }] });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'BATCH_FAILED');
    assert.equal(typeof res.body.error, 'string');
    assert.deepEqual(res.body.summary, { total: 2, succeeded: 0, failed: 2 });
  });

  test('GET /assets/{id} adds images, category and file', async () => {
    const category = await server.marketplace.admin.createCategory({ slug: `props-${Date.now()}`, name: 'Props' });
    const { id } = await assetWithFile(server, server.seller.token, { category_id: category.id });
    await uploadImage(server, server.seller.token, id);
    const res = await as(server, server.seller.token).get(`/assets/${id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.category, category);
    assert.equal(res.body.images.length, 1);
    assert.equal(res.body.images[0].is_primary, true);
    assert.equal(res.body.images[0].id, res.body.images[0].image_id);
    assert.equal(res.body.file.file_size, 14);
    assert.equal(res.body.file.content_type, 'application/zip');
  });

  test('PATCH /assets/{id} changes only the fields sent', async () => {
    const client = as(server, server.seller.token);
    const created = (await client.post('/assets', validAsset({ description: 'old' }))).body;
    server.clock.advance(1000);
    const res = await client.patch(`/assets/${created.id}`, { title: '  New title  ', pricing_type: 'fixed', price: 4.99, visibility: 'unlisted' });
    assert.equal(res.status, 200);
    assert.equal(res.body.title, 'New title');
    assert.equal(res.body.description, 'old');
    assert.equal(res.body.price, 4.99);
    assert.equal(res.body.is_free, false);
    assert.equal(res.body.visibility, 'unlisted');
    assert.notEqual(res.body.updated_at, created.updated_at);
    assert.equal(res.body.created_at, created.created_at);
  });

  test('DELETE /assets/{id} deletes a draft and its blobs', async () => {
    const client = as(server, server.seller.token);
    const { id, file } = await assetWithFile(server, server.seller.token);
    const res = await client.delete(`/assets/${id}`);
    assert.deepEqual([res.status, res.body], [200, { success: true, id }]);
    assert.equal((await client.get(`/assets/${id}`)).status, 404);
    assert.equal(await server.marketplace.ports.blobs.head(file.file.storage_path), null, 'the file is gone from the blob store');
  });

  test('POST /assets/{id}/submit moves a draft with a file to pending', async () => {
    const { id } = await assetWithFile(server, server.seller.token);
    const res = await as(server, server.seller.token).post(`/assets/${id}/submit`);
    assert.deepEqual([res.status, res.body], [200, { success: true, id, status: 'pending', scheduled_publish_at: null }]);
  });

  test('submit with a future scheduled_publish_at gives scheduled', async () => {
    const at = new Date(server.clock.now() + 86_400_000).toISOString();
    const { id } = await assetWithFile(server, server.seller.token, { scheduled_publish_at: at });
    const res = await as(server, server.seller.token).post(`/assets/${id}/submit`);
    assert.deepEqual([res.status, res.body.status, res.body.scheduled_publish_at], [200, 'scheduled', at]);
  });

  test('GET /categories lists categories by name', async () => {
    const zebra = await server.marketplace.admin.createCategory({ slug: `zz-${Date.now()}`, name: 'Zz Last' });
    const alpha = await server.marketplace.admin.createCategory({ slug: `aa-${Date.now()}`, name: 'Aa First' });
    const res = await as(server, server.seller.token).get('/categories');
    assert.equal(res.status, 200);
    const names = res.body.data.map((c: { name: string }) => c.name);
    assert.ok(names.indexOf(alpha.name) < names.indexOf(zebra.name) && names.indexOf(alpha.name) >= 0);
    assert.deepEqual(res.body.data.find((c: { id: string }) => c.id === zebra.id), zebra);
  });

  test('GET /tokens lists tokens without secrets; DELETE /tokens revokes', async () => {
    const seller = await server.account();
    server.clock.advance(1000);
    const second = await server.marketplace.admin.createToken({ accountId: seller.id, name: 'ci', scopes: ['assets:read'] });
    const client = as(server, seller.token);
    const list = await client.get('/tokens');
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.map((t: { id: string }) => t.id), [second.record.id, seller.tokenId], 'newest first');
    const raw = JSON.stringify(list.body);
    assert.ok(!raw.includes(seller.token) && !raw.includes(second.token), 'no secret in the list');
    assert.equal(list.body.data[1].prefix, seller.token.slice(0, 12));
    assert.ok(!('hash' in list.body.data[0]), 'no hash in the list');
    const revoked = await client.delete(`/tokens?id=${second.record.id}`);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.success, true);
    assert.equal(revoked.body.id, second.record.id);
    assert.match(revoked.body.revoked_at, isoMs);
    const again = await client.delete(`/tokens?id=${second.record.id}`);
    assert.deepEqual([again.status, again.body.revoked_at], [200, revoked.body.revoked_at], 'revoking again is 200 with the first time');
    assert.deepEqual((await client.get('/tokens')).body.data.map((t: { id: string }) => t.id), [seller.tokenId], 'revoked tokens are left out');
    assert.equal((await as(server, second.token).get('/assets')).status, 401, 'the revoked token stops working at once');
  });

  test('last_used_at is recorded when a token is used', async () => {
    const seller = await server.account();
    await as(server, seller.token).get('/me');
    const [token] = (await as(server, seller.token).get('/tokens')).body.data;
    assert.equal(token.last_used_at, new Date(server.clock.now()).toISOString());
  });

  test('every response carries x-request-id, echoing a safe one the client sent', async () => {
    const echoed = await call(server, 'GET', '/health', { headers: { 'x-request-id': 'client-req.42' } });
    assert.equal(echoed.headers.get('x-request-id'), 'client-req.42');
    const generated = await call(server, 'GET', '/nope', { headers: { 'x-request-id': 'bad id with spaces' } });
    assert.match(generated.headers.get('x-request-id') ?? '', uuid);
  });

  test('authenticated responses carry the rate-limit headers', async () => {
    const res = await as(server, server.seller.token).get('/me');
    for (const header of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
      assert.match(res.headers.get(header) ?? '', /^\d+$/, header);
    }
  });
});
