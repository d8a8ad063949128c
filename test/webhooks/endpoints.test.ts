import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { as, assetWithFile, call, startServer, uploadImage, validAsset, type TestServer } from '../fixtures/server.js';
import { createEndpoint } from '../fixtures/webhooks.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A fresh seller with every scope, so that tests do not share endpoints or the limit. */
const freshSeller = () => server.account();

describe('endpoints', () => {
  test('a created endpoint answers 201 with its signing secret, which no later answer shows', async () => {
    const seller = await freshSeller();
    const client = as(server, seller.token);
    const created = await client.post('/webhooks', { url: 'https://hooks.castle.example/in', description: 'Build server' });
    assert.equal(created.status, 201);
    assert.match(created.body.id, uuid);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{32}$/, '24 random bytes in base64');
    assert.equal(atob(created.body.secret.slice(6)).length, 24);
    assert.deepStrictEqual(
      { url: created.body.url, description: created.body.description, event_types: created.body.event_types, enabled: created.body.enabled, disabled_reason: created.body.disabled_reason },
      { url: 'https://hooks.castle.example/in', description: 'Build server', event_types: ['*'], enabled: true, disabled_reason: null },
    );
    const { secret, ...shown } = created.body;
    const got = await client.get(`/webhooks/${created.body.id}`);
    assert.equal(got.status, 200);
    assert.deepStrictEqual(got.body, shown);
    const listed = await client.get('/webhooks');
    assert.deepStrictEqual(listed.body, { data: [shown] });
    for (const body of [got.body, listed.body]) assert.doesNotMatch(JSON.stringify(body), new RegExp(secret.slice(6, 20).replace(/[+/]/g, '\\$&')));
    // Another endpoint's secret is another.
    assert.notEqual((await createEndpoint(server, seller.token)).secret, secret);
  });

  test('a URL that is not public https is 400 naming url: http, loopback, private, link-local and metadata addresses, credentials', async () => {
    const client = as(server, (await freshSeller()).token);
    const refused: [string, RegExp][] = [
      ['http://hooks.castle.example/in', /must start with https:\/\//],
      ['https://127.0.0.1/in', /loopback/],
      ['https://localhost:8443/in', /this machine/],
      ['https://[::1]/in', /loopback/],
      ['https://2130706433/in', /loopback address \(127\.0\.0\.1\)/],
      ['https://10.0.0.5/in', /private/],
      ['https://192.168.1.20/in', /private/],
      ['https://169.254.169.254/latest/meta-data', /link-local \(cloud metadata\)/],
      ['https://metadata.google.internal/computeMetadata', /metadata/],
      ['https://[::ffff:10.0.0.1]/in', /private/],
      ['https://user:pass@hooks.castle.example/in', /user name or password/],
      ['ftp://hooks.castle.example/in', /https/],
      ['not a url', /absolute URL/],
    ];
    for (const [url, message] of refused) {
      const answer = await client.post('/webhooks', { url });
      assert.equal(answer.status, 400, url);
      assert.equal(answer.body.code, 'INVALID_INPUT');
      assert.equal(answer.body.details[0].path, 'url', url);
      assert.match(answer.body.details[0].message, message, url);
    }
    assert.deepStrictEqual((await client.get('/webhooks')).body, { data: [] }, 'nothing was created');
  });

  test('with the operator’s allowances, http and loopback URLs are accepted', async () => {
    const local = await startServer({ webhooks: { allowHttp: true, allowPrivateAddresses: true } });
    try {
      const created = await as(local, local.seller.token).post('/webhooks', { url: 'http://127.0.0.1:9/in' });
      assert.equal(created.status, 201);
      // Allowing private addresses does not allow other schemes.
      assert.equal((await as(local, local.seller.token).post('/webhooks', { url: 'ftp://127.0.0.1/in' })).status, 400);
    } finally {
      await local.close();
    }
  });

  test('event_types: known types or *, at least one, no repeats; * with others is every type; unknown fields are 400', async () => {
    const client = as(server, (await freshSeller()).token);
    const bad: [unknown, string][] = [
      [['asset.exploded'], 'event_types[0]'],
      [[], 'event_types'],
      [['asset.created', 'asset.created'], 'event_types'],
      ['asset.created', 'event_types'],
    ];
    for (const [event_types, path] of bad) {
      const answer = await client.post('/webhooks', { url: 'https://hooks.castle.example/in', event_types });
      assert.equal(answer.status, 400, JSON.stringify(event_types));
      assert.equal(answer.body.details[0].path, path);
    }
    assert.equal((await client.post('/webhooks', { url: 'https://hooks.castle.example/in', secret: 'whsec_mine' })).body.details[0].path, 'secret');
    assert.equal((await client.post('/webhooks', {})).body.details[0].path, 'url');
    const every = await createEndpoint(server, (await freshSeller()).token, { event_types: ['asset.created', '*'] });
    assert.deepStrictEqual(every.event_types, ['*']);
  });

  test('webhooks:read lists and reads, webhooks:write changes; a token without them is 403, as is a default token', async () => {
    const seller = await freshSeller();
    const endpoint = await createEndpoint(server, seller.token);
    const reader = await server.account({}, ['webhooks:read']);
    const readerEndpoint = await createEndpoint(server, (await freshSeller()).token);
    assert.equal((await as(server, reader.token).get('/webhooks')).status, 200);
    const refused = await as(server, reader.token).post('/webhooks', { url: 'https://hooks.castle.example/in' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'FORBIDDEN');
    assert.match(refused.body.error, /webhooks:write/);
    const defaults = await server.account({}, ['profile:read', 'assets:read', 'assets:write']);
    for (const [method, path] of [['GET', '/webhooks'], ['GET', `/webhooks/${endpoint.id}/deliveries`], ['POST', `/webhooks/${endpoint.id}/test`], ['DELETE', `/webhooks/${readerEndpoint.id}`]] as const) {
      const answer = await call(server, method, path, { token: defaults.token });
      assert.equal(answer.status, 403, `${method} ${path}`);
    }
    assert.equal((await as(server, seller.token).get(`/webhooks/${endpoint.id}`)).status, 200, 'nothing was deleted');
  });

  test("another account's endpoint and its deliveries are 404 on every route", async () => {
    const owner = await freshSeller();
    const endpoint = await createEndpoint(server, owner.token);
    const delivery = (await as(server, owner.token).post(`/webhooks/${endpoint.id}/test`)).body;
    const stranger = as(server, (await freshSeller()).token);
    const answers = [
      await stranger.get(`/webhooks/${endpoint.id}`),
      await stranger.patch(`/webhooks/${endpoint.id}`, { description: 'mine now' }),
      await stranger.post(`/webhooks/${endpoint.id}/rotate-secret`),
      await stranger.post(`/webhooks/${endpoint.id}/test`),
      await stranger.get(`/webhooks/${endpoint.id}/deliveries`),
      await stranger.post(`/webhooks/${endpoint.id}/deliveries/${delivery.id}/redeliver`),
      await stranger.delete(`/webhooks/${endpoint.id}`),
      await stranger.get('/webhooks/not-a-uuid'),
    ];
    for (const answer of answers) assert.deepStrictEqual([answer.status, answer.body.code], [404, 'NOT_FOUND']);
    assert.equal((await as(server, owner.token).get(`/webhooks/${endpoint.id}`)).body.description, examplesDescription());
  });

  test('an account has at most 10 endpoints: the 11th is 409 CONFLICT, and a deleted one makes room', async () => {
    const seller = await freshSeller();
    const made = [];
    for (let i = 0; i < 10; i++) made.push(await createEndpoint(server, seller.token, { url: `https://hooks.castle.example/${i}` }));
    const eleventh = await as(server, seller.token).post('/webhooks', { url: 'https://hooks.castle.example/11' });
    assert.deepStrictEqual([eleventh.status, eleventh.body.code], [409, 'CONFLICT']);
    assert.match(eleventh.body.error, /at most 10/);
    const listed = (await as(server, seller.token).get('/webhooks')).body.data.map((e: { id: string }) => e.id);
    assert.deepStrictEqual(new Set(listed), new Set(made.map((e) => e.id)));
    assert.deepStrictEqual((await as(server, seller.token).delete(`/webhooks/${made[0]!.id}`)).body, { success: true, id: made[0]!.id });
    assert.equal((await as(server, seller.token).get(`/webhooks/${made[0]!.id}`)).status, 404);
    assert.equal((await as(server, seller.token).post('/webhooks', { url: 'https://hooks.castle.example/11' })).status, 201);
  });

  test('PATCH changes what it is sent; disabling says so and refuses test events until enabled again', async () => {
    const seller = await freshSeller();
    const client = as(server, seller.token);
    const endpoint = await createEndpoint(server, seller.token);
    server.clock.advance(1000);
    const changed = await client.patch(`/webhooks/${endpoint.id}`, { url: 'https://other.castle.example/x', event_types: ['asset.published'], description: null });
    assert.equal(changed.status, 200);
    assert.deepStrictEqual([changed.body.url, changed.body.event_types, changed.body.description], ['https://other.castle.example/x', ['asset.published'], null]);
    assert.notEqual(changed.body.updated_at, changed.body.created_at);
    assert.equal((await client.patch(`/webhooks/${endpoint.id}`, { url: 'https://10.1.1.1/' })).body.details[0].path, 'url');
    assert.equal((await client.patch(`/webhooks/${endpoint.id}`, {})).status, 400);
    assert.equal((await client.patch(`/webhooks/${endpoint.id}`, { secret: 'x' })).body.details[0].path, 'secret');
    const disabled = await client.patch(`/webhooks/${endpoint.id}`, { enabled: false });
    assert.deepStrictEqual([disabled.body.enabled, disabled.body.disabled_reason, disabled.body.disabled_at], [false, 'Disabled by the seller.', new Date(server.clock.now()).toISOString()]);
    const refused = await client.post(`/webhooks/${endpoint.id}/test`);
    assert.deepStrictEqual([refused.status, refused.body.code], [409, 'CONFLICT']);
    assert.match(refused.body.error, /disabled/);
    const enabled = await client.patch(`/webhooks/${endpoint.id}`, { enabled: true });
    assert.deepStrictEqual([enabled.body.enabled, enabled.body.disabled_reason, enabled.body.disabled_at], [true, null, null]);
    assert.equal((await client.post(`/webhooks/${endpoint.id}/test`)).status, 202);
  });

  test('rotating the secret answers a new one, once; the old one keeps signing until 24 hours later', async () => {
    const seller = await freshSeller();
    const endpoint = await createEndpoint(server, seller.token);
    const rotated = await as(server, seller.token).post(`/webhooks/${endpoint.id}/rotate-secret`);
    assert.equal(rotated.status, 200);
    assert.match(rotated.body.secret, /^whsec_/);
    assert.notEqual(rotated.body.secret, endpoint.secret);
    assert.equal(rotated.body.previous_secret_expires_at, new Date(server.clock.now() + 24 * 3_600_000).toISOString());
    const got = (await as(server, seller.token).get(`/webhooks/${endpoint.id}`)).body;
    assert.equal(got.previous_secret_expires_at, rotated.body.previous_secret_expires_at);
    assert.equal('secret' in got, false);
  });
});

describe('deliveries', () => {
  test('a test event is queued to that endpoint only (202), whatever it subscribes to, and listed with its status', async () => {
    const seller = await freshSeller();
    const client = as(server, seller.token);
    const endpoint = await createEndpoint(server, seller.token, { event_types: ['asset.published'] });
    const other = await createEndpoint(server, seller.token);
    const queued = await client.post(`/webhooks/${endpoint.id}/test`);
    assert.equal(queued.status, 202);
    assert.deepStrictEqual(
      { ...queued.body, id: 'x', event_id: 'x' },
      {
        id: 'x',
        event_id: 'x',
        endpoint_id: endpoint.id,
        event_type: 'webhook.test',
        status: 'pending',
        attempts: [],
        next_attempt_at: new Date(server.clock.now()).toISOString(),
        redelivery_of: null,
        created_at: new Date(server.clock.now()).toISOString(),
        updated_at: new Date(server.clock.now()).toISOString(),
      },
    );
    const listed = await client.get(`/webhooks/${endpoint.id}/deliveries`);
    assert.deepStrictEqual(listed.body, { data: [queued.body], pagination: { limit: 50, offset: 0, total: 1, has_more: false } });
    assert.deepStrictEqual((await client.get(`/webhooks/${other.id}/deliveries`)).body.data, []);
    assert.deepStrictEqual((await client.get(`/webhooks/${endpoint.id}/deliveries?status=failed`)).body.data, []);
    assert.equal((await client.get(`/webhooks/${endpoint.id}/deliveries?status=lost`)).body.details[0].path, 'status');
    assert.equal((await client.get(`/webhooks/${endpoint.id}/deliveries?limit=0`)).body.details[0].path, 'limit');
  });

  test('a redelivery is a new delivery of the same event to the same endpoint; unknown or elsewhere 404, disabled 409', async () => {
    const seller = await freshSeller();
    const client = as(server, seller.token);
    const endpoint = await createEndpoint(server, seller.token);
    const other = await createEndpoint(server, seller.token);
    const first = (await client.post(`/webhooks/${endpoint.id}/test`)).body;
    const again = await client.post(`/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`);
    assert.equal(again.status, 202);
    assert.notEqual(again.body.id, first.id);
    assert.deepStrictEqual([again.body.event_id, again.body.endpoint_id, again.body.redelivery_of, again.body.status], [first.event_id, endpoint.id, first.id, 'pending']);
    const page = (await client.get(`/webhooks/${endpoint.id}/deliveries?limit=1`)).body;
    assert.deepStrictEqual(page.pagination, { limit: 1, offset: 0, total: 2, has_more: true });
    assert.equal((await client.post(`/webhooks/${other.id}/deliveries/${first.id}/redeliver`)).status, 404, 'the delivery is not this endpoint’s');
    assert.equal((await client.post(`/webhooks/${endpoint.id}/deliveries/${crypto.randomUUID()}/redeliver`)).status, 404);
    await client.patch(`/webhooks/${endpoint.id}`, { enabled: false });
    assert.equal((await client.get(`/webhooks/${endpoint.id}/deliveries?status=failed`)).body.pagination.total, 2, 'disabling failed what was queued');
    const refused = await client.post(`/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`);
    assert.deepStrictEqual([refused.status, refused.body.code], [409, 'CONFLICT']);
  });

  test("every change of a listing and a token revocation queue their events, in order, to a subscribed endpoint; others' changes do not", async () => {
    const seller = await freshSeller();
    const client = as(server, seller.token);
    const every = await createEndpoint(server, seller.token, { event_types: ['*'] });
    const outcomes = await createEndpoint(server, seller.token, { event_types: ['asset.published', 'asset.rejected', 'token.revoked'] });
    const types = async (endpointId: string) =>
      ((await client.get(`/webhooks/${endpointId}/deliveries?limit=100`)).body.data as { event_type: string }[]).map((d) => d.event_type).reverse();
    // A listing through its whole life, and one the moderators reject.
    const { id } = await assetWithFile(server, seller.token);
    assert.equal((await uploadImage(server, seller.token, id)).status, 201);
    await client.patch(`/assets/${id}`, { title: 'Renamed Pack' });
    await client.post(`/assets/${id}/submit`);
    await server.marketplace.moderation.approve(id);
    await server.marketplace.moderation.archive(id);
    const second = (await assetWithFile(server, seller.token)).id;
    await client.post(`/assets/${second}/submit`);
    await server.marketplace.moderation.reject(second, 'Blurry screenshots');
    const draft = (await client.post('/assets', validAsset())).body.id;
    await client.delete(`/assets/${draft}`);
    const revoker = await server.marketplace.admin.createToken({ accountId: seller.id, name: 'to revoke', scopes: ['profile:read'] });
    await client.delete(`/tokens?id=${revoker.record.id}`);
    await client.delete(`/tokens?id=${revoker.record.id}`); // already revoked: no second event
    // Refused changes queue nothing.
    await client.post(`/assets/${id}/submit`); // 409
    await client.post('/assets', validAsset({ slug: 'x'.repeat(101) })); // 400
    // Another seller's changes never reach these endpoints.
    await assetWithFile(server, server.other.token);
    assert.deepStrictEqual(await types(every.id), [
      'asset.created',
      'asset.file_confirmed',
      'asset.image_confirmed',
      'asset.updated',
      'asset.submitted',
      'asset.published',
      'asset.archived',
      'asset.created',
      'asset.file_confirmed',
      'asset.submitted',
      'asset.rejected',
      'asset.created',
      'asset.deleted',
      'token.revoked',
    ]);
    assert.deepStrictEqual(await types(outcomes.id), ['asset.published', 'asset.rejected', 'token.revoked']);
  });

  test('a scheduled listing queues asset.scheduled, then asset.released when the clock passes its time', async () => {
    const seller = await freshSeller();
    const client = as(server, seller.token);
    const endpoint = await createEndpoint(server, seller.token, { event_types: ['asset.scheduled', 'asset.released', 'asset.changes_requested'] });
    const at = new Date(server.clock.now() + 3_600_000).toISOString();
    const { id } = await assetWithFile(server, seller.token, { scheduled_publish_at: at });
    assert.equal((await client.post(`/assets/${id}/submit`)).body.status, 'scheduled');
    server.clock.advance(3_600_000);
    await server.marketplace.moderation.releaseDue();
    await server.marketplace.moderation.requestChanges(id, 'Add a changelog');
    const types = ((await client.get(`/webhooks/${endpoint.id}/deliveries`)).body.data as { event_type: string }[]).map((d) => d.event_type).reverse();
    assert.deepStrictEqual(types, ['asset.scheduled', 'asset.released', 'asset.changes_requested']);
  });
});

function examplesDescription() {
  return 'Review outcomes, to our build server';
}
