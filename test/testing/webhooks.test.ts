import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createTestMarketplace, type TestMarketplace } from '../../testing/index.js';
import { startCliServer } from '../fixtures/cli.js';
import { startReceiver } from '../fixtures/webhook-receiver.js';

/** An endpoint of the seller fixture, made through the API as a client would; its secret. */
async function endpointOf(mk: TestMarketplace, token: string, url = 'https://hooks.castle.example/marketkit') {
  const created = await mk.fetch(`${mk.api}/webhooks`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ url }) });
  assert.equal(created.status, 201);
  return (await created.json()) as { id: string; secret: string };
}

const post = (mk: TestMarketplace, token: string, path: string, body?: unknown) =>
  mk.fetch(`${mk.api}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

test('mk.webhooks records each delivery before the request that queued it is answered, signed as in production', async () => {
  const mk = createTestMarketplace();
  const seller = await mk.seller();
  const { secret } = await endpointOf(mk, seller.token);
  const created = await (await post(mk, seller.token, '/assets', { title: 'Kit Pack', slug: 'kit-pack' })).json();
  // No wait: the delivery is there when the answer is.
  const [delivery] = mk.webhooks.list({ type: 'asset.created' });
  assert.ok(delivery, 'delivered before the create was answered');
  assert.equal(delivery.url, 'https://hooks.castle.example/marketkit');
  assert.deepStrictEqual(delivery.answer, { status: 200 });
  assert.equal((delivery.event.data.asset as { id: string }).id, created.id);
  const verified = new Webhook(secret).verify(delivery.body, delivery.headers) as { id: string };
  assert.equal(verified.id, delivery.headers['webhook-id']);
  // waitFor finds what came, or says what did.
  assert.equal((await mk.webhooks.waitFor({ type: 'asset.created' })).event.id, delivery.event.id);
  await assert.rejects(mk.webhooks.waitFor({ type: 'asset.archived' }, { timeoutMs: 50 }), /no delivery matching \{"type":"asset\.archived"\} within 50 ms; delivered: asset\.created to https:\/\/hooks\.castle\.example\/marketkit/);
  await mk.reset();
  assert.deepStrictEqual(mk.webhooks.list(), []);
});

test('respondWith makes the receiver fail; clock.advance sends the retry when it is due, by the kit’s clock', async () => {
  const mk = createTestMarketplace({ now: Date.now() });
  const seller = await mk.seller();
  const { id } = await endpointOf(mk, seller.token);
  mk.webhooks.respondWith(503);
  await post(mk, seller.token, `/webhooks/${id}/test`);
  assert.deepStrictEqual(mk.webhooks.list().map((d) => d.answer), [{ status: 503 }]);
  await mk.clock.advance(5_000);
  assert.equal(mk.webhooks.list().length, 1, 'the retry is not due yet');
  mk.webhooks.respondWith(() => 204);
  await mk.clock.advance(6_000);
  assert.deepStrictEqual(mk.webhooks.list().map((d) => d.answer), [{ status: 503 }, { status: 204 }]);
  const log = await (await mk.fetch(`${mk.api}/webhooks/${id}/deliveries`, { headers: { authorization: `Bearer ${seller.token}` } })).json();
  assert.deepStrictEqual(log.data[0].attempts.map((a: { status_code: number }) => a.status_code), [503, 204]);
  assert.throws(() => mk.webhooks.respondWith(42), /a status from 100 to 599/);
});

test('sendTo delivers every attempt to a URL the test gives, where the standardwebhooks library verifies it', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const mk = createTestMarketplace({ now: Date.now() });
  const seller = await mk.seller();
  const { secret } = await endpointOf(mk, seller.token, 'https://hooks.castle.example/elsewhere');
  mk.webhooks.sendTo(`${receiver.url}/from-kit`);
  receiver.script(500);
  await post(mk, seller.token, '/assets', { title: 'Sent Pack', slug: 'sent-pack' });
  assert.deepStrictEqual(mk.webhooks.list().map((d) => d.answer), [{ status: 500 }], 'the receiver’s answer counts');
  await mk.clock.advance(11_000);
  assert.equal(receiver.received.length, 2);
  for (const r of receiver.received) assert.equal((new Webhook(secret).verify(r.body, r.headers) as { type: string }).type, 'asset.created');
  assert.equal(receiver.received[0]!.path, '/from-kit');
});

test('serve --memory --test-controls shows the deliveries, and sets how they are answered', async (t) => {
  const server = await startCliServer(['--memory', '--test-controls']);
  t.after(() => server.stop());
  const controls = `${server.info.url}/__marketkit`;
  const token = server.info.dev_seller.token!;
  const call = async (url: string, method = 'GET', body?: unknown, auth = false) => {
    const response = await fetch(url, { method, headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${token}` } : {}) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: response.status, body: await response.json() };
  };
  const endpoint = await call(`${server.info.api}/webhooks`, 'POST', { url: 'http://127.0.0.1:9/kit' }, true);
  assert.equal(endpoint.status, 201);
  assert.deepStrictEqual((await call(`${controls}/webhooks`, 'POST', { respond_with: 500 })).body, { ok: true, attempted: 0, succeeded: 0, retrying: 0, failed: 0 });
  await call(`${server.info.api}/webhooks/${endpoint.body.id}/test`, 'POST', undefined, true);
  const shown = await call(`${controls}/webhooks?type=webhook.test`);
  assert.deepStrictEqual(shown.body.data.map((d: { event: { type: string }; answer: unknown; url: string }) => [d.event.type, d.answer, d.url]), [['webhook.test', { status: 500 }, 'http://127.0.0.1:9/kit']]);
  assert.equal((await call(`${controls}/webhooks`, 'POST', { respond_with: 'ok' })).body.details[0].path, 'respond_with');
  assert.equal((await call(`${controls}/webhooks`, 'POST', { respondWith: 200 })).body.details[0].path, 'respondWith');
  assert.deepStrictEqual((await call(`${controls}/webhooks`, 'DELETE')).body, { ok: true });
  assert.deepStrictEqual((await call(`${controls}/webhooks`)).body, { data: [] });
});

test('a moderator’s decision through mk.moderate is delivered before it returns', async () => {
  const mk = createTestMarketplace();
  const accounts = await mk.seed({ accounts: [{ username: 'hooked' }], assets: [{ owner: 'hooked', title: 'Waiting Pack', slug: 'waiting-pack', status: 'pending', file: true }] });
  const token = accounts.hooked!.token;
  await endpointOf(mk, token);
  const [listing] = (await (await mk.fetch(`${mk.api}/assets`, { headers: { authorization: `Bearer ${token}` } })).json()).data;
  await mk.moderate.approve(listing.id);
  const [published] = mk.webhooks.list({ type: 'asset.published' });
  assert.deepStrictEqual([(published?.event.data.asset as { id: string }).id, published?.event.data.previous_status], [listing.id, 'pending']);
});
