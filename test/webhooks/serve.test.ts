import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { runCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { as } from '../fixtures/server.js';
import { startReceiver } from '../fixtures/webhook-receiver.js';
import { createEndpoint } from '../fixtures/webhooks.js';

const local = ['--webhooks-allow-local'];

/** A receiver, a data directory and `marketkit serve` on it that may deliver to loopback, all gone when the test ends. */
async function servedWithReceiver(t: { after(fn: () => unknown): void }) {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const dir = tempDir(t);
  const server = await startCliServer(['--data-dir', dir, ...local]);
  t.after(() => server.stop());
  return { receiver, dir, server, token: server.info.dev_seller.token! };
}

test('marketkit serve delivers signed events to a receiver; without --webhooks-allow-local a loopback URL is refused', async (t) => {
  const { receiver, dir, server, token } = await servedWithReceiver(t);
  const endpoint = await createEndpoint(server.info, token, { url: `${receiver.url}/serve` });
  const created = await as(server.info, token).post('/assets', { title: 'Served Pack', slug: 'served-pack' });
  const [delivery] = await receiver.waitFor(1);
  const payload = new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers) as { type: string; data: { asset: { id: string } } };
  assert.deepStrictEqual([payload.type, payload.data.asset.id], ['asset.created', created.body.id]);
  await server.stop();

  const strict = await startCliServer(['--data-dir', dir]);
  t.after(() => strict.stop());
  const refused = await as(strict.info, token).post('/webhooks', { url: `${receiver.url}/serve` });
  assert.equal(refused.status, 400);
  assert.match(refused.body.error, /https/);
});

test('an instance with --no-webhook-delivery records events; another instance on the same data delivers them, also after the first was killed', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const dir = tempDir(t);
  const recorder = await startCliServer(['--data-dir', dir, '--no-webhook-delivery', ...local]);
  t.after(() => recorder.stop('SIGKILL'));
  const token = recorder.info.dev_seller.token!;
  const endpoint = await createEndpoint(recorder.info, token, { url: `${receiver.url}/later` });
  const client = as(recorder.info, token);
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push((await client.post('/assets', { title: `Recorded ${i}`, slug: `recorded-${i}` })).body.id);
  // Committed, answered, not delivered: then the process dies.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(receiver.received.length, 0, 'this instance does not deliver');
  assert.equal((await client.get(`/webhooks/${endpoint.id}/deliveries?status=pending`)).body.pagination.total, 5);
  await recorder.stop('SIGKILL');

  const deliverer = await startCliServer(['--data-dir', dir, ...local]);
  t.after(() => deliverer.stop());
  const got = await receiver.waitFor(5, 10_000);
  const delivered = got.map((r) => (new Webhook(endpoint.secret).verify(r.body, r.headers) as { data: { asset: { id: string } } }).data.asset.id);
  assert.deepStrictEqual(new Set(delivered), new Set(ids));
  assert.equal(got.length, 5, 'each once');
});

test('SIGKILL mid-delivery: after a restart the event is delivered again, the only duplicate, with the same webhook-id', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const dir = tempDir(t);
  const first = await startCliServer(['--data-dir', dir, '--webhook-timeout', '1', ...local]);
  t.after(() => first.stop('SIGKILL'));
  const token = first.info.dev_seller.token!;
  await createEndpoint(first.info, token, { url: `${receiver.url}/crash` });
  // The first request is left hanging: the worker has sent it and waits for an answer when it dies.
  receiver.script('hang');
  await as(first.info, token).post('/assets', { title: 'Crash Pack', slug: 'crash-pack' });
  await receiver.waitFor(1);
  await first.stop('SIGKILL');
  const killedAt = Date.now();

  const second = await startCliServer(['--data-dir', dir, '--webhook-timeout', '1', ...local]);
  t.after(() => second.stop());
  // The dead worker's lease (timeout + 15 s) runs out; then this instance sends it again.
  const got = await receiver.waitFor(2, 30_000);
  assert.ok(Date.now() - killedAt >= 14_000, 'not before the lease ran out');
  assert.equal(got[0]!.headers['webhook-id'], got[1]!.headers['webhook-id']);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(receiver.received.length, 2, 'delivered, and not again');
});

test('marketkit admin webhooks lists an account’s endpoints and its failing deliveries', async (t) => {
  const { receiver, dir, server, token } = await servedWithReceiver(t);
  const endpoint = await createEndpoint(server.info, token, { url: `${receiver.url}/admin`, event_types: ['asset.created'] });
  receiver.script(500);
  await as(server.info, token).post('/assets', { title: 'Failing Pack', slug: 'failing-pack' });
  await receiver.waitFor(1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const text = await runCli(['admin', 'webhooks', 'dev-seller', '--data-dir', dir]);
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^1 webhook endpoint:\\n  ${endpoint.id}  enabled   ${receiver.url}/admin  \\[asset\\.created\\]$`, 'm'));
  assert.match(text.stdout, /^1 failing delivery \(newest first\):\n  \S+  retrying  asset\.created  1 attempt, last: HTTP 500, next at \S+ {2}\(endpoint \S+\)$/m);
  const json = JSON.parse((await runCli(['admin', 'webhooks', 'dev-seller', '--data-dir', dir, '--json'])).stdout);
  assert.equal(json.failing_total, 1);
  assert.equal(json.endpoints[0].id, endpoint.id);
  assert.equal('secret' in json.endpoints[0], false);
  assert.equal((await runCli(['admin', 'webhooks', 'nobody', '--data-dir', dir])).code, 1);
  const help = await runCli(['admin', 'webhooks', '--help']);
  assert.match(help.stdout, /GET \/api\/admin\/accounts\/\{account\}\/webhooks/);
});
