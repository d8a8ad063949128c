/**
 * Webhooks from several `marketkit serve` instances on one PostgreSQL database (a throwaway cluster,
 * test/fixtures/postgres.ts): each event reaches the receiver once while every worker lives, and at
 * least once, duplicated only where a worker died mid-delivery, when one is killed.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { runCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { as } from '../fixtures/server.js';
import { startReceiver } from '../fixtures/webhook-receiver.js';
import { createEndpoint } from '../fixtures/webhooks.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('postgresql');

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

test('two instances on one PostgreSQL database deliver every event once; one killed mid-delivery leaves that event to another, sent twice', async (t) => {
  const url = await cluster.createDatabase();
  const made = JSON.parse((await runCli(['keys', '--json'])).stdout);
  const secrets = { MARKETKIT_SIGNING_SECRET: made.signing_secret, MARKETKIT_SESSION_KEY: JSON.stringify(made.session_key) };
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const args = ['--database-url', url, '--blobs', 'fs', '--data-dir', tempDir(t), '--webhooks-allow-local', '--webhook-timeout', '1'];
  const one = await startCliServer(args, secrets);
  t.after(() => one.stop('SIGKILL'));
  const two = await startCliServer(args, secrets);
  t.after(() => two.stop());
  const token = one.info.dev_seller.token ?? two.info.dev_seller.token!;
  const endpoint = await createEndpoint(one.info, token, { url: `${receiver.url}/pg`, event_types: ['asset.created'] });

  // Both deliver, both write: 20 creates, half through each.
  const ids = await Promise.all(Array.from({ length: 20 }, async (_, i) => (await as([one, two][i % 2]!.info, token).post('/assets', { title: `Shared ${i}`, slug: `shared-${i}` })).body.id as string));
  const got = await receiver.waitFor(20, 15_000);
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(receiver.received.length, 20, 'no event twice while both workers live');
  const delivered = got.map((r) => (new Webhook(endpoint.secret).verify(r.body, r.headers) as { data: { asset: { id: string } } }).data.asset.id);
  assert.deepStrictEqual(new Set(delivered), new Set(ids));

  // One deliverer left, held mid-delivery by a receiver that does not answer, then killed.
  await two.stop();
  receiver.script('hang');
  await as(one.info, token).post('/assets', { title: 'Shared Crash', slug: 'shared-crash' });
  await receiver.waitFor(21, 10_000);
  await one.stop('SIGKILL');
  const three = await startCliServer(args, secrets);
  t.after(() => three.stop());
  const again = await receiver.waitFor(22, 30_000);
  assert.equal(again[21]!.headers['webhook-id'], again[20]!.headers['webhook-id'], 'the event the dead worker held, sent again');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(receiver.received.length, 22, 'and nothing else twice');
});
