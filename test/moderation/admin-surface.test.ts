import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { validate as validateOpenApi } from '@readme/openapi-parser';
import { generateAdminOpenApi } from '../../core/admin/openapi.js';
import { as, assetWithFile, startServer, type TestServer } from '../fixtures/server.js';

const serviceKey = 'test-service-key-0123456789abcdef0123456789';

type Json = Record<string, any>;
const adminDocument = generateAdminOpenApi('http://localhost') as Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);

/** Holds every admin answer to the admin OpenAPI document: the operation's schema for that status. */
function checkAdminAnswer(method: string, path: string, status: number, body: unknown) {
  const bare = path.split('?')[0]!;
  const entry = Object.entries(adminDocument.paths as Record<string, Json>).find(([template]) =>
    new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`).test(bare),
  );
  const operation = entry?.[1][method.toLowerCase()];
  if (!operation) return; // 404s and 405s of undocumented paths and methods
  const response = operation.responses[String(status)];
  assert.ok(response, `${method} ${bare} answered ${status}, which its admin document does not list`);
  const schema = response.content['application/json'].schema;
  const validate = ajv.compile({ ...schema, components: adminDocument.components });
  assert.ok(validate(body), `${method} ${bare} ${status}: ${ajv.errorsText(validate.errors)}`);
}

/** A call to the admin surface (not in the developer API's OpenAPI document, so plain fetch). */
async function admin(server: TestServer, method: string, path: string, options: { key?: string | null; body?: unknown; surface?: false } = {}) {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers.authorization = `Bearer ${options.key ?? serviceKey}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}/api/admin${path}`, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) });
  const text = await res.text();
  const answer = { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
  if (res.status !== 401 && options.surface !== false) checkAdminAnswer(method, path, res.status, answer.body);
  return answer;
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
    assert.equal((await admin(server, 'POST', `/accounts/${crypto.randomUUID()}`, { body: { is_restricted: false } })).status, 404);
    assert.equal((await admin(server, 'POST', `/accounts/${account.id}`, { body: {} })).status, 400, 'a change must change something');
    const category = await admin(server, 'POST', '/categories', { body: { slug: 'textures', name: 'Textures' } });
    assert.equal(category.status, 200);
    assert.equal(category.body.slug, 'textures');
    assert.equal((await admin(server, 'POST', '/categories', { body: { slug: 'textures', name: 'Again' } })).status, 409);
    assert.equal((await admin(server, 'DELETE', '/categories')).status, 405);
    assert.equal((await admin(server, 'GET', '/nothing-here')).status, 404);

    const renamed = await admin(server, 'POST', `/categories/${category.body.id}`, { body: { name: 'Surface textures' } });
    assert.deepEqual(renamed.body, { id: category.body.id, slug: 'textures', name: 'Surface textures' });
    const listed = await admin(server, 'GET', '/categories');
    assert.ok(listed.body.data.some((c: { name: string }) => c.name === 'Surface textures'));
    assert.equal((await as(server, server.seller.token).get('/categories')).body.data.find((c: { id: string }) => c.id === category.body.id).name, 'Surface textures', 'sellers see the new name');
    assert.equal((await admin(server, 'POST', `/categories/${crypto.randomUUID()}`, { body: { name: 'X' } })).status, 404);
    const empty = await admin(server, 'POST', `/categories/${category.body.id}`, { body: { name: '' } });
    assert.equal(empty.status, 400);
    assert.match(empty.body.error, /^name /, 'the field is named');
  });

  test('create-account makes a seller a standalone server lacked, with its state flags; accounts lists them all by username', async () => {
    const created = await admin(server, 'POST', '/accounts', { body: { username: 'second-seller', display_name: 'Second', payouts_connected: true, subscription_tier: 'pro' } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual(
      [created.body.username, created.body.display_name, created.body.seller_status, created.body.payouts_connected, created.body.subscription_tier, created.body.is_suspended, created.body.storage_bytes],
      ['second-seller', 'Second', 'approved', true, 'pro', false, 0],
    );
    const pending = await admin(server, 'POST', '/accounts', { body: { username: 'applicant', seller_status: 'pending', is_restricted: true } });
    assert.deepEqual([pending.body.seller_status, pending.body.is_restricted], ['pending', true]);
    const taken = await admin(server, 'POST', '/accounts', { body: { username: 'second-seller' } });
    assert.deepEqual([taken.status, taken.body.code, taken.body.details[0].path], [409, 'CONFLICT', 'username']);
    for (const body of [{}, { username: 'has space' }, { username: 'ok', seller_status: 'king' }, { username: 'ok', id: crypto.randomUUID() }]) {
      const refused = await admin(server, 'POST', '/accounts', { body });
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.body.code, 'INVALID_INPUT');
    }
    // The new account works: a token made for it reaches the developer API.
    const token = await server.marketplace.admin.createToken({ accountId: created.body.id, name: 'first', scopes: ['assets:read', 'assets:write'] });
    assert.equal((await as(server, token.token).post('/assets', { title: 'From the second seller', slug: 'second-seller-pack' })).status, 201);

    const all = await admin(server, 'GET', '/accounts?limit=100');
    assert.equal(all.status, 200);
    const usernames = all.body.data.map((a: { username: string }) => a.username);
    assert.ok(usernames.includes('second-seller') && usernames.includes('applicant'));
    assert.deepEqual([...usernames].sort((a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)), usernames, 'by username');
    assert.equal(all.body.total, usernames.length);
    const page = await admin(server, 'GET', '/accounts?limit=1&offset=1');
    assert.deepEqual([page.body.data.length, page.body.data[0].username, page.body.total, page.body.limit, page.body.offset], [1, usernames[1], all.body.total, 1, 1]);
    assert.equal((await admin(server, 'GET', '/accounts?limit=0')).status, 400);
  });

  test('an account by id or username, its plan, and its tokens: list and revoke, which stops the token on REST at once', async () => {
    const account = await server.account({ username: 'plan-seller' });
    const byName = await admin(server, 'GET', '/accounts/plan-seller');
    assert.equal(byName.status, 200);
    assert.equal(byName.body.id, account.id);
    const planned = await admin(server, 'POST', '/accounts/plan-seller', { body: { subscription_tier: 'pro', plan_features: ['scheduled_publishing'] } });
    assert.equal(planned.body.subscription_tier, 'pro');
    assert.deepEqual(planned.body.plan_features, ['scheduled_publishing']);
    assert.equal((await admin(server, 'GET', '/accounts/nobody-at-all')).status, 404);

    const tokens = await admin(server, 'GET', `/accounts/${account.id}/tokens`);
    assert.equal(tokens.status, 200);
    const [first] = tokens.body.data;
    assert.ok(first, 'the account has its token');
    assert.equal(JSON.stringify(tokens.body).includes(account.token), false, 'never the secret');
    assert.equal((await as(server, account.token).get('/me')).status, 200);
    const revoked = await admin(server, 'POST', `/accounts/${account.id}/tokens/${first.id}/revoke`);
    assert.equal(revoked.status, 200);
    assert.equal(revoked.body.id, first.id);
    assert.equal((await as(server, account.token).get('/me')).status, 401, 'revoked on REST at once');
    assert.equal((await admin(server, 'POST', `/accounts/${account.id}/tokens/${first.id}/revoke`)).status, 404, 'not listed once revoked');
    assert.equal((await admin(server, 'POST', `/accounts/${server.seller.id}/tokens/${crypto.randomUUID()}/revoke`)).status, 404);
  });

  test('release-due moves due scheduled listings to pending, once', async () => {
    const seller = await server.account({ plan_features: ['scheduled_publishing'], payouts_connected: true });
    const when = new Date(server.clock.now() + 60_000).toISOString();
    const { id } = await assetWithFile(server, seller.token, { scheduled_publish_at: when });
    const submitted = await as(server, seller.token).post(`/assets/${id}/submit`);
    assert.equal(submitted.body.status, 'scheduled');
    assert.equal((await admin(server, 'POST', '/moderation/release-due')).body.released.some((a: { id: string }) => a.id === id), false, 'not yet due');
    server.clock.advance(61_000);
    const released = await admin(server, 'POST', '/moderation/release-due');
    assert.deepEqual(released.body.released.filter((a: { id: string }) => a.id === id).map((a: { status: string }) => a.status), ['pending']);
    assert.equal((await admin(server, 'POST', '/moderation/release-due')).body.released.some((a: { id: string }) => a.id === id), false, 'once');
  });

  test('routes and queries as REST does: 405 with Allow, a query field given twice or badly encoded is 400 naming it', async () => {
    const wrong = await admin(server, 'DELETE', '/accounts');
    assert.deepEqual([wrong.status, wrong.body.code, wrong.headers.get('allow')], [405, 'METHOD_NOT_ALLOWED', 'GET, HEAD, POST']);
    assert.equal((await admin(server, 'GET', '/accounts?limit=1')).body.limit, 1);
    const twice = await admin(server, 'GET', '/accounts?limit=1&limit=50');
    assert.deepEqual([twice.status, twice.body.code, twice.body.details?.[0]?.path], [400, 'INVALID_INPUT', 'limit']);
    const garbled = await admin(server, 'GET', '/moderation/queue?limit=%zz');
    assert.deepEqual([garbled.status, garbled.body.code], [400, 'INVALID_INPUT']);
    assert.equal((await admin(server, 'GET', '/accounts/%zz')).status, 404);
  });

  test('its own OpenAPI document, behind the key, valid, and not part of the developer API document', async () => {
    assert.equal((await admin(server, 'GET', '/openapi.json', { key: null })).status, 401);
    const res = await admin(server, 'GET', '/openapi.json');
    assert.equal(res.status, 200);
    assert.equal(res.body.info.title, 'Marketplace Admin API');
    assert.equal(res.body.servers[0].url, `${server.url}/api/admin`);
    assert.deepEqual(await validateOpenApi(structuredClone(res.body)), { valid: true, warnings: [], specification: 'OpenAPI' });
    const operations = Object.values(res.body.paths as Record<string, Json>).flatMap((methods) => Object.values(methods).map((op) => op.operationId));
    for (const name of ['queue', 'approve', 'reject', 'requestChanges', 'archive', 'releaseDue', 'account', 'updateAccount', 'categories', 'createCategory', 'renameCategory', 'tokens', 'revokeToken']) {
      assert.ok(operations.includes(name), name);
    }
    const publicDocument = (await fetch(`${server.url}/api/v1/openapi.json`).then((r) => r.json())) as Json;
    assert.equal(Object.keys(publicDocument.paths).some((p) => p.includes('moderation') || p.includes('admin')), false);
  });
});

test('without a service key every /api/admin path is 404, with the key or without', async (t) => {
  const server = await startServer();
  t.after(() => server.close());
  for (const path of ['', '/moderation/queue', '/categories']) {
    assert.equal((await admin(server, 'GET', path, { surface: false })).status, 404);
    assert.equal((await admin(server, 'POST', path, { key: null, body: {}, surface: false })).status, 404);
  }
  assert.equal(server.marketplace.owns('/api/admin/moderation/queue'), false);
});

test('a short service key is refused with a message that says what to use', async () => {
  await assert.rejects(startServer({ serviceKey: 'short' }), /serviceKey must be at least 32 characters/);
});
