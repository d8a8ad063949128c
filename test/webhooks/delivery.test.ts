import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { manualClock, memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { nodeWebhookSender, serve, type NodeWebhookSenderOptions } from '../../bindings/node/index.js';
import { createMarketplace, type MarketplaceOptions } from '../../core/index.js';
import { retryDelaysMs } from '../../core/webhooks/schedule.js';
import { callTool } from '../fixtures/mcp.js';
import { as, assetWithFile, startServer, type TestServer } from '../fixtures/server.js';
import { startReceiver, type Receiver } from '../fixtures/webhook-receiver.js';
import { createEndpoint } from '../fixtures/webhooks.js';

type WebhookServer = TestServer & { clock: ReturnType<typeof manualClock> };

/**
 * A server whose clock starts at the real time (the standardwebhooks library checks a delivery's
 * timestamp against its own clock) and whose sender may reach the loopback receiver.
 */
async function webhookServer(sender: NodeWebhookSenderOptions = { allowHttp: true, allowPrivateAddresses: true }, options: Partial<MarketplaceOptions> = {}): Promise<WebhookServer> {
  const clock = manualClock(Date.now());
  const server = await startServer({ clock, webhooks: { allowHttp: true, allowPrivateAddresses: true, sender: nodeWebhookSender(sender), timeoutMs: 400 }, ...options });
  return { ...server, clock };
}

/** Runs passes until nothing is due now; every attempt made. */
async function drain(server: Pick<TestServer, 'marketplace'>): Promise<number> {
  let attempted = 0;
  for (;;) {
    const pass = await server.marketplace.webhooks.deliverDue();
    if (pass.attempted === 0) return attempted;
    attempted += pass.attempted;
  }
}

/** The payloads the receiver got, verified with `secret` by the standardwebhooks library, in sequence order. */
function verified(receiver: Receiver, secret: string) {
  return receiver.received
    .map((r) => ({ payload: new Webhook(secret).verify(r.body, r.headers) as { id: string; type: string; sequence: number; data: any }, headers: r.headers }))
    .sort((a, b) => a.payload.sequence - b.payload.sequence);
}

const deliveriesOf = async (server: TestServer, token: string, endpointId: string) =>
  (await as(server, token).get(`/webhooks/${endpointId}/deliveries?limit=100`)).body.data as { id: string; status: string; event_type: string; attempts: { status_code: number | null; error: string | null; at: string; latency_ms: number }[]; next_attempt_at: string | null }[];

let server: WebhookServer;
let receiver: Receiver;
before(async () => {
  server = await webhookServer();
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await server.close();
});

describe('signed deliveries', () => {
  test('a receiver verifies every delivery with the standardwebhooks library; a wrong secret fails its check', async () => {
    receiver.received.length = 0;
    const seller = await server.account();
    const endpoint = await createEndpoint(server, seller.token, { url: `${receiver.url}/hooks/marketkit`, event_types: ['*'] });
    const { id } = await assetWithFile(server, seller.token);
    await as(server, seller.token).post(`/assets/${id}/submit`);
    await server.marketplace.moderation.approve(id);
    assert.equal(await drain(server), 4);
    const got = verified(receiver, endpoint.secret);
    assert.deepStrictEqual(got.map((g) => g.payload.type), ['asset.created', 'asset.file_confirmed', 'asset.submitted', 'asset.published']);
    for (const { payload, headers } of got) {
      assert.equal(payload.id, headers['webhook-id']);
      assert.equal(payload.data.asset.id, id);
      assert.equal(headers['content-type'], 'application/json');
      assert.match(headers['user-agent']!, /^MarketKit-Webhooks\//);
      assert.equal(Number(headers['webhook-timestamp']), Math.floor(server.clock.now() / 1000));
    }
    const published = got[3]!.payload;
    assert.deepStrictEqual([published.data.asset.status, published.data.previous_status], ['published', 'pending']);
    assert.equal(got[1]!.payload.data.file.file_size > 0, true);
    assert.deepStrictEqual(Object.keys(published).sort(), ['account_id', 'data', 'id', 'sequence', 'timestamp', 'type']);
    assert.equal(receiver.received[0]!.path, '/hooks/marketkit');
    // Another secret, or a body changed on the way, fails the check.
    const other = (await createEndpoint(server, seller.token)).secret;
    const first = receiver.received[0]!;
    assert.throws(() => new Webhook(other).verify(first.body, first.headers), WebhookVerificationError);
    assert.throws(() => new Webhook(endpoint.secret).verify(first.body.replace('asset.', 'asset '), first.headers), WebhookVerificationError);
    // Each delivery is logged as one successful attempt.
    const log = await deliveriesOf(server, seller.token, endpoint.id);
    assert.deepStrictEqual(log.map((d) => [d.status, d.attempts.length, d.attempts[0]?.status_code, d.next_attempt_at]), Array(4).fill(['succeeded', 1, 200, null]));
  });

  test('each event type is delivered after its operation through MCP as through REST', async () => {
    receiver.received.length = 0;
    const seller = await server.account();
    const endpoint = await createEndpoint(server, seller.token, { url: `${receiver.url}/mcp`, event_types: ['*'] });
    const created = await callTool(server, seller.token, 'create_asset', { title: 'Tool Made Pack', slug: `tool-made-${Date.now()}` });
    const assetId = created.body.result.structuredContent.id;
    await callTool(server, seller.token, 'update_asset', { asset_id: assetId, title: 'Tool Renamed Pack' });
    await callTool(server, seller.token, 'delete_asset', { asset_id: assetId });
    await drain(server);
    const got = verified(receiver, endpoint.secret);
    assert.deepStrictEqual(got.map((g) => [g.payload.type, g.payload.data.asset.id]), [
      ['asset.created', assetId],
      ['asset.updated', assetId],
      ['asset.deleted', assetId],
    ]);
    assert.equal(got[1]!.payload.data.asset.title, 'Tool Renamed Pack');
  });

  test('after a rotation every delivery carries both signatures for 24 hours, then the new one only', async () => {
    receiver.received.length = 0;
    const seller = await server.account();
    const endpoint = await createEndpoint(server, seller.token, { url: `${receiver.url}/rotated` });
    const rotated = (await as(server, seller.token).post(`/webhooks/${endpoint.id}/rotate-secret`)).body;
    await as(server, seller.token).post(`/webhooks/${endpoint.id}/test`);
    await drain(server);
    const during = receiver.received[0]!;
    assert.equal(during.headers['webhook-signature']!.split(' ').length, 2);
    for (const secret of [endpoint.secret, rotated.secret]) assert.equal((new Webhook(secret).verify(during.body, during.headers) as { type: string }).type, 'webhook.test');
    server.clock.advance(24 * 3_600_000 + 1000);
    await as(server, seller.token).post(`/webhooks/${endpoint.id}/test`);
    await drain(server);
    const later = receiver.received[1]!;
    // The library checks the timestamp against the real clock, a day behind this server's now: its own signing says what it expects.
    const at = new Date(Number(later.headers['webhook-timestamp']) * 1000);
    assert.equal(later.headers['webhook-signature'], new Webhook(rotated.secret).sign(later.headers['webhook-id']!, at, later.body));
    server.clock.set(Date.now());
  });
});

describe('retries and disabling', () => {
  test('500, then a timeout, then 200: three attempts, each after the documented delay, all in the delivery log', async () => {
    const local = await webhookServer();
    const hooks = await startReceiver();
    try {
      const seller = await local.account();
      const endpoint = await createEndpoint(local, seller.token, { url: `${hooks.url}/flaky` });
      hooks.script(500, 'hang', 200);
      await as(local, seller.token).post(`/webhooks/${endpoint.id}/test`);
      const start = local.clock.now();
      const within = (at: string | null, from: number, delay: number) => {
        const due = Date.parse(at!) - from;
        assert.ok(due >= delay * 0.9 && due <= delay * 1.1, `due ${due} ms after the attempt; the schedule says ${delay} ms ±10 %`);
      };
      assert.equal(await drain(local), 1);
      let [delivery] = await deliveriesOf(local, seller.token, endpoint.id);
      assert.equal(delivery!.status, 'retrying');
      within(delivery!.next_attempt_at, start, retryDelaysMs[0]!);
      // Not due before its time.
      local.clock.advance(retryDelaysMs[0]! * 0.9 - 1);
      assert.equal(await drain(local), 0);
      local.clock.set(Date.parse(delivery!.next_attempt_at!));
      const second = local.clock.now();
      const began = performance.now();
      assert.equal(await drain(local), 1);
      assert.ok(performance.now() - began < 2000, 'the hanging receiver was given up on at the timeout');
      [delivery] = await deliveriesOf(local, seller.token, endpoint.id);
      assert.equal(delivery!.status, 'retrying');
      within(delivery!.next_attempt_at, second, retryDelaysMs[1]!);
      local.clock.set(Date.parse(delivery!.next_attempt_at!));
      assert.equal(await drain(local), 1);
      [delivery] = await deliveriesOf(local, seller.token, endpoint.id);
      assert.deepStrictEqual(
        delivery!.attempts.map((a) => [a.status_code, a.error]),
        [
          [500, null],
          [null, 'timeout'],
          [200, null],
        ],
      );
      assert.deepStrictEqual([delivery!.status, delivery!.next_attempt_at], ['succeeded', null]);
      assert.ok(delivery!.attempts[1]!.latency_ms >= 350, 'the timed-out attempt took its timeout');
      assert.equal(hooks.received.length, 3);
      assert.equal(new Set(hooks.received.map((r) => r.headers['webhook-id'])).size, 1, 'one event: the same webhook-id every time');
    } finally {
      await hooks.close();
      await local.close();
    }
  });

  test('an endpoint that fails every attempt for about three days is disabled with the reason, its queue failed', async () => {
    const local = await webhookServer();
    const hooks = await startReceiver();
    try {
      const seller = await local.account();
      const endpoint = await createEndpoint(local, seller.token, { url: `${hooks.url}/down` });
      hooks.script(...Array(retryDelaysMs.length + 1).fill(503));
      await as(local, seller.token).post(`/webhooks/${endpoint.id}/test`);
      const first = local.clock.now();
      for (let attempt = 1; attempt <= retryDelaysMs.length + 1; attempt++) {
        assert.equal(await drain(local), 1, `attempt ${attempt}`);
        const [delivery] = await deliveriesOf(local, seller.token, endpoint.id);
        if (delivery!.next_attempt_at) local.clock.set(Date.parse(delivery!.next_attempt_at));
      }
      const elapsedDays = (local.clock.now() - first) / 86_400_000;
      assert.ok(elapsedDays > 2.5 && elapsedDays < 3.3, `the last attempt came ${elapsedDays.toFixed(2)} days after the first`);
      const [delivery] = await deliveriesOf(local, seller.token, endpoint.id);
      assert.deepStrictEqual([delivery!.status, delivery!.attempts.length, delivery!.next_attempt_at], ['failed', 11, null]);
      const disabled = (await as(local, seller.token).get(`/webhooks/${endpoint.id}`)).body;
      assert.equal(disabled.enabled, false);
      assert.match(disabled.disabled_reason, /every attempt failed for about three days.*HTTP 503/);
      assert.equal(hooks.received.length, 11);
      // Disabled: new events do not reach it; enabled again, they do.
      await as(local, seller.token).post('/assets', { title: 'After Disabling', slug: `after-disabling-${Date.now()}` });
      assert.equal(await drain(local), 0);
      await as(local, seller.token).patch(`/webhooks/${endpoint.id}`, { enabled: true });
      const redelivered = await as(local, seller.token).post(`/webhooks/${endpoint.id}/deliveries/${delivery!.id}/redeliver`);
      assert.equal(redelivered.status, 202);
      hooks.script(200);
      hooks.received.length = 0;
      assert.equal(await drain(local), 1);
      assert.equal(hooks.received[0]!.headers['webhook-id'], redelivered.body.event_id, 'the same event again');
      assert.equal((await as(local, seller.token).get(`/webhooks/${endpoint.id}/deliveries?status=succeeded`)).body.data[0].id, redelivered.body.id);
    } finally {
      await hooks.close();
      await local.close();
    }
  });
});

describe('safety', () => {
  test('loopback, private and metadata targets are refused at delivery without the operator’s allowance, also when a name resolves to them', async () => {
    const names: Record<string, string> = { 'hooks.loopback.test': '127.0.0.1', 'hooks.private.test': '10.0.0.7', 'metadata.cloud.test': '169.254.169.254', 'mixed.test': '93.184.216.34' };
    // The API accepts them (it cannot resolve names), the sender refuses: only http is allowed to it.
    const strict = await webhookServer({ allowHttp: true, resolve: async (host) => (host === 'mixed.test' ? [{ address: '93.184.216.34', family: 4 }, { address: '::1', family: 6 }] : [{ address: names[host]!, family: 4 }]) });
    const hooks = await startReceiver();
    try {
      const seller = await strict.account();
      const targets = [`${hooks.url}/literal`, ...Object.keys(names).map((host) => `http://${host}:${new URL(hooks.url).port}/named`)];
      const endpoints = [];
      for (const url of targets) endpoints.push(await createEndpoint(strict, seller.token, { url }));
      for (const e of endpoints) await as(strict, seller.token).post(`/webhooks/${e.id}/test`);
      assert.equal(await drain(strict), targets.length);
      const errors = [];
      for (const e of endpoints) errors.push((await deliveriesOf(strict, seller.token, e.id))[0]!.attempts[0]!.error);
      assert.match(errors[0]!, /^refused: the url must not point at a loopback address \(127\.0\.0\.1\)/);
      // Security finding 4 of wave 2: the log said what a name resolved to ("resolves to a loopback address
      // (127.0.0.1)"), a DNS oracle for any seller. It says that the target was refused, and nothing more.
      const hosts = Object.keys(names);
      for (const [i, host] of hosts.entries()) {
        assert.equal(errors[i + 1], `refused: ${host} does not resolve to a public address`);
        assert.ok(!/loopback|private|link-local|metadata address|\d+\.\d+\.\d+\.\d+|::1/.test(errors[i + 1]!.replace(host, '')), errors[i + 1]!);
      }
      assert.equal(hooks.received.length, 0, 'nothing reached the receiver');
    } finally {
      await hooks.close();
      await strict.close();
    }
  });

  test('a delivery goes to the address its check resolved, with the host name kept', async () => {
    const pinned = await webhookServer({ allowHttp: true, allowPrivateAddresses: true, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const hooks = await startReceiver();
    try {
      const seller = await pinned.account();
      const url = `http://hooks.pinned.test:${new URL(hooks.url).port}/in`;
      const endpoint = await createEndpoint(pinned, seller.token, { url });
      await as(pinned, seller.token).post(`/webhooks/${endpoint.id}/test`);
      await drain(pinned);
      assert.equal(hooks.received.length, 1, 'the name resolves nowhere but through the check');
      assert.equal(hooks.received[0]!.headers.host, `hooks.pinned.test:${new URL(hooks.url).port}`);
    } finally {
      await hooks.close();
      await pinned.close();
    }
  });

  test('a redirect is not followed: it is a failed attempt; a long answer is read only in part', async () => {
    const elsewhere = await startReceiver();
    try {
      receiver.received.length = 0;
      const seller = await server.account();
      const redirecting = await createEndpoint(server, seller.token, { url: `${receiver.url}/moved` });
      receiver.script({ redirect: `${elsewhere.url}/target` });
      await as(server, seller.token).post(`/webhooks/${redirecting.id}/test`);
      await drain(server);
      const [delivery] = await deliveriesOf(server, seller.token, redirecting.id);
      assert.deepStrictEqual([delivery!.status, delivery!.attempts[0]!.status_code], ['retrying', 302]);
      assert.equal(elsewhere.received.length, 0);
      // 64 MiB offered; the sender hangs up after 64 KiB (what the sockets' buffers took meanwhile aside), and the attempt counts by its status.
      const chatty = await createEndpoint(server, seller.token, { url: `${receiver.url}/chatty` });
      receiver.script({ status: 200, bodyBytes: 64 * 1024 * 1024 });
      await as(server, seller.token).post(`/webhooks/${chatty.id}/test`);
      await drain(server);
      assert.equal((await deliveriesOf(server, seller.token, chatty.id))[0]!.status, 'succeeded');
      for (let i = 0; i < 50 && receiver.unread === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(receiver.unread > 32 * 1024 * 1024, `the sender stopped reading early (${receiver.unread} bytes left unread)`);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('workers', () => {
  test('a running worker sends what a change committed at once, whatever its poll: a REST change, a moderator’s, a redelivery', async () => {
    const sent: string[] = [];
    const sender = { send: async (request: { body: string }) => (sent.push(JSON.parse(request.body).type), { status: 200, latencyMs: 1 }) };
    const nudged = await startServer({ webhooks: { sender } });
    // Ten minutes between polls: only the change path's nudge can explain a delivery within the test.
    const worker = nudged.marketplace.webhooks.startWorker({ pollMs: 600_000 });
    const sentWithin = async (types: string[], what: string) => {
      for (let i = 0; i < 100 && sent.length < types.length; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.deepEqual(sent, types, what);
    };
    try {
      const seller = await nudged.account();
      const endpoint = await createEndpoint(nudged, seller.token, { url: 'https://hooks.castle.example/nudged' });
      const { id } = await assetWithFile(nudged, seller.token);
      await sentWithin(['asset.created', 'asset.file_confirmed'], 'REST changes');
      assert.equal((await as(nudged, seller.token).post(`/assets/${id}/submit`)).status, 200);
      await nudged.marketplace.moderation.approve(id);
      await sentWithin(['asset.created', 'asset.file_confirmed', 'asset.submitted', 'asset.published'], 'a moderator’s change, outside any request');
      const [first] = (await deliveriesOf(nudged, seller.token, endpoint.id)).filter((d) => d.event_type === 'asset.created');
      assert.equal((await as(nudged, seller.token).post(`/webhooks/${endpoint.id}/deliveries/${first!.id}/redeliver`)).status, 202);
      await sentWithin(['asset.created', 'asset.file_confirmed', 'asset.submitted', 'asset.published', 'asset.created'], 'a redelivery');
    } finally {
      await worker.stop();
      await nudged.close();
    }
  });

  test('two instances with running workers on one store deliver each event once', async () => {
    const storage = memoryStorage();
    const blobs = memoryBlobs();
    const hooks = await startReceiver();
    const options = { storage, blobs, webhooks: { allowHttp: true, allowPrivateAddresses: true, sender: nodeWebhookSender({ allowHttp: true, allowPrivateAddresses: true }) } };
    const [one, two] = [createMarketplace(options), createMarketplace(options)];
    const running = await Promise.all([serve(one, { port: 0 }), serve(two, { port: 0 })]);
    const workers = [one.webhooks.startWorker({ pollMs: 20 }), two.webhooks.startWorker({ pollMs: 20 })];
    try {
      const account = await one.admin.createAccount({ username: `two-workers-${Date.now()}`, seller_status: 'approved' });
      const { token } = await one.admin.createToken({ accountId: account.id, name: 't', scopes: ['assets:write', 'webhooks:write'] });
      const endpoint = await createEndpoint({ api: `${running[0]!.url}/api/v1` }, token, { url: `${hooks.url}/both` });
      // 30 changes, half through each instance.
      await Promise.all(
        Array.from({ length: 30 }, (_, i) => as({ api: `${running[i % 2]!.url}/api/v1` }, token).post('/assets', { title: `Pack ${i}`, slug: `two-workers-${Date.now()}-${i}` })),
      );
      await hooks.waitFor(30);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const ids = hooks.received.map((r) => r.headers['webhook-id']);
      assert.equal(ids.length, 30, 'no event twice');
      assert.equal(new Set(ids).size, 30);
      for (const r of hooks.received) new Webhook(endpoint.secret).verify(r.body, r.headers);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await Promise.all(running.map((r) => r.close()));
      await hooks.close();
    }
  });
});
