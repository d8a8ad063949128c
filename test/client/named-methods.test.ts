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

test('arrangeImages puts the gallery in a new order, the first the primary, with an Idempotency-Key like every write', async () => {
  const server = await startServer();
  try {
    const keys: (string | null)[] = [];
    const client = createClient({
      baseUrl: server.url,
      token: (await server.account()).token,
      fetch: (input, init) => {
        if (init?.method === 'PUT' && String(input).endsWith('/images/order')) keys.push(new Headers(init.headers).get('idempotency-key'));
        return fetch(input, init);
      },
    });
    const asset = await client.createAsset(validAsset());
    const shot = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
    const first = await client.uploadImage(asset.id, shot, { filename: 'one.png' });
    const second = await client.uploadImage(asset.id, shot, { filename: 'two.png' });
    const arranged = await client.arrangeImages(asset.id, [second.id, first.id]);
    assert.deepEqual(arranged.images.map((image) => [image.id, image.is_primary, image.position]), [[second.id, true, 0], [first.id, false, 1]]);
    assert.deepEqual((await client.getAsset(asset.id)).images.map((image) => image.id), [second.id, first.id]);
    assert.equal(keys.length, 1);
    assert.ok(keys[0], 'the PUT carried an Idempotency-Key');
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
