import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { as, assetWithFile, startServer, type TestServer } from '../fixtures/server.js';

const serviceKey = 'test-service-key-0123456789abcdef0123456789';

/** A call to the admin surface (not in the developer API's OpenAPI document, so plain fetch). */
async function admin(server: TestServer, method: string, path: string, options: { key?: string | null; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? serviceKey}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}/api/admin${path}`, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

describe('the admin surface with a service key', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer({ serviceKey });
  });
  after(() => server.close());

  test('refuses a developer token, a session JWT, a wrong key and no key with 401', async () => {
    const session: string = (await as(server, server.seller.token).post('/auth/session')).body.access_token;
    assert.ok(session);
    for (const key of [server.seller.token, session, `${serviceKey}x`, serviceKey.slice(0, -1), null]) {
      const res = await admin(server, 'GET', '/moderation/queue', { key });
      assert.equal(res.status, 401, `key ${key?.slice(0, 12)}`);
      assert.equal(res.body.code, 'UNAUTHORIZED');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
    const { id } = await assetWithFile(server, server.seller.token);
    await as(server, server.seller.token).post(`/assets/${id}/submit`);
    assert.equal((await admin(server, 'POST', `/assets/${id}/approve`, { key: server.seller.token })).status, 401);
    assert.equal((await as(server, server.seller.token).get(`/assets/${id}`)).body.status, 'pending', 'nothing changed');
  });

  test('the queue lists pending listings of every seller; approve, request-changes, reject and archive move them', async () => {
    const seller = as(server, server.seller.token);
    const other = as(server, server.other.token);
    const a = await assetWithFile(server, server.seller.token);
    const b = await assetWithFile(server, server.other.token);
    await seller.post(`/assets/${a.id}/submit`);
    server.clock.advance(1000);
    await other.post(`/assets/${b.id}/submit`);
    const queue = await admin(server, 'GET', '/moderation/queue?limit=100');
    assert.equal(queue.status, 200);
    const ids = queue.body.items.map((item: { id: string }) => item.id);
    assert.ok(ids.indexOf(a.id) >= 0 && ids.indexOf(a.id) < ids.indexOf(b.id), 'both, oldest first');
    assert.ok(queue.body.items.every((item: { status: string }) => item.status === 'pending'));

    const approved = await admin(server, 'POST', `/assets/${a.id}/approve`);
    assert.equal(approved.status, 200);
    assert.equal(approved.body.status, 'published');
    assert.equal((await admin(server, 'POST', `/assets/${a.id}/approve`)).body.code, 'INVALID_STATUS');
    assert.equal((await admin(server, 'POST', `/assets/${a.id}/archive`)).body.status, 'archived');

    assert.equal((await admin(server, 'POST', `/assets/${b.id}/request-changes`, { body: {} })).status, 400, 'a reason is required');
    assert.equal((await admin(server, 'POST', `/assets/${b.id}/request-changes`, { body: { reason: 'Add a preview.' } })).body.status, 'changes_requested');
    assert.equal((await other.get(`/assets/${b.id}`)).body.review.reason, 'Add a preview.');
    await other.post(`/assets/${b.id}/submit`);
    const rejected = await admin(server, 'POST', `/assets/${b.id}/reject`, { body: { reason: 'Not original work.' } });
    assert.equal(rejected.status, 200);
    assert.equal(rejected.body.status, 'rejected');
    assert.equal((await admin(server, 'POST', `/assets/${crypto.randomUUID()}/approve`)).status, 404);
  });

  test('accounts and categories', async () => {
    const account = await server.account({ payouts_connected: false });
    const updated = await admin(server, 'POST', `/accounts/${account.id}`, { body: { payouts_connected: true, is_restricted: true } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.payouts_connected, true);
    assert.equal(updated.body.is_restricted, true);
    assert.equal((await admin(server, 'POST', `/accounts/${account.id}`, { body: { seller_status: 'king' } })).status, 400);
    assert.equal((await admin(server, 'POST', `/accounts/${account.id}`, { body: { username: 'renamed' } })).status, 400, 'only the listed fields');
    assert.equal((await admin(server, 'POST', `/accounts/${crypto.randomUUID()}`, { body: {} })).status, 404);
    const category = await admin(server, 'POST', '/categories', { body: { slug: 'textures', name: 'Textures' } });
    assert.equal(category.status, 200);
    assert.equal(category.body.slug, 'textures');
    assert.equal((await admin(server, 'POST', '/categories', { body: { slug: 'textures', name: 'Again' } })).status, 409);
    assert.equal((await admin(server, 'GET', '/categories')).status, 405);
    assert.equal((await admin(server, 'GET', '/nothing-here')).status, 404);
  });
});

test('without a service key every /api/admin path is 404, with the key or without', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  for (const path of ['', '/moderation/queue', '/categories']) {
    assert.equal((await admin(server, 'GET', path)).status, 404);
    assert.equal((await admin(server, 'POST', path, { key: null, body: {} })).status, 404);
  }
  assert.equal(server.marketplace.owns('/api/admin/moderation/queue'), false);
});

test('a short service key is refused with a message that says what to use', async () => {
  await assert.rejects(startServer({ serviceKey: 'short' }), /serviceKey must be at least 32 characters/);
});
