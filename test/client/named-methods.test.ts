import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createClient } from '../../client/index.js';
import { examples } from '../../core/http/examples.js';
import { startServer, validAsset } from '../fixtures/server.js';

test('docs/client.md names every method of the client', () => {
  const doc = readFileSync(new URL('../../docs/client.md', import.meta.url), 'utf8');
  const client = createClient({ baseUrl: 'https://market.example' });
  const methods = Object.keys(client).filter((name) => typeof client[name as keyof typeof client] === 'function');
  assert.ok(methods.includes('countAssets') && methods.includes('redeliverWebhook'), 'the client was read');
  assert.deepEqual(methods.filter((name) => !doc.includes(`\`${name}(`)), []);
});

test('countAssets counts the caller\'s listings in each status', async () => {
  const server = await startServer();
  try {
    const client = createClient({ baseUrl: server.url, token: (await server.account()).token });
    await client.createAsset(validAsset());
    await client.createAsset(validAsset());
    const counts = await client.countAssets();
    assert.equal(counts.total, 2);
    assert.equal(counts.by_status.draft, 2);
  } finally {
    await server.close();
  }
});

test('the webhook methods: an endpoint created, read, listed, changed, tested, redelivered, its secret rotated, deleted', async () => {
  const server = await startServer();
  try {
    const client = createClient({ baseUrl: server.url, token: (await server.account()).token });
    const created = await client.createWebhookEndpoint({ ...examples.createWebhookEndpoint, event_types: ['*'] });
    assert.match(created.secret ?? '', /^whsec_/, 'the secret, shown in this answer only');
    const { secret, ...shown } = created;
    assert.deepEqual(await client.getWebhookEndpoint(created.id), shown);
    assert.deepEqual(await client.listWebhookEndpoints(), { data: [shown] });
    const changed = await client.updateWebhookEndpoint(created.id, { description: 'Build server' });
    assert.equal(changed.description, 'Build server');

    const delivery = await client.sendWebhookTest(created.id);
    const listed = await client.listWebhookDeliveries(created.id, { limit: 5 });
    assert.ok(listed.data.some((item) => item.id === delivery.id), 'the test delivery is listed');
    const again = await client.redeliverWebhook(created.id, delivery.id);
    assert.notEqual(again.id, delivery.id);
    assert.equal(again.event_id, delivery.event_id, 'the same event, as a new delivery');

    const rotated = await client.rotateWebhookSecret(created.id);
    assert.notEqual(rotated.secret, secret);
    assert.deepEqual(await client.deleteWebhookEndpoint(created.id, { idempotencyKey: 'delete-endpoint' }), { success: true, id: created.id });
    await assert.rejects(client.getWebhookEndpoint(created.id), { code: 'NOT_FOUND' });
  } finally {
    await server.close();
  }
});
