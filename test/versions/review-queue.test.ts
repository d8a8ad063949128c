/**
 * The review queue holds new listings and new versions of published listings, oldest submission
 * first, each item saying which it is (../shared/spec/contract.md, "Versions of a published
 * listing"), filterable by kind and paged by cursor and offset: on memory, SQLite and PostgreSQL,
 * through the admin surface and `marketkit admin queue`.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { needs } from '../fixtures/parts.js';
import { as, uploadFile, validAsset, type TestServer } from '../fixtures/server.js';
import { startServerOn, stopStores, storeNames } from '../fixtures/stores.js';

const serviceKey = 'review-queue-service-key-0123456789abcdef';
const pg = needs('postgresql');
after(stopStores);

async function admin(server: TestServer, path: string, method = 'GET') {
  const res = await fetch(`${server.url}/api/admin${path}`, { method, headers: { authorization: `Bearer ${serviceKey}` } });
  return { status: res.status, body: await res.json() };
}

type Item = { kind: string; id: string; title?: string; version?: string; asset_id?: string };
const seen = (items: Item[]) => items.map((item) => `${item.kind}:${item.kind === 'listing' ? item.title : item.version}`);

/** Two minutes between submissions: the queue's order is the submissions' (the test's clock). */
async function build(server: TestServer) {
  const client = as(server, server.seller.token);
  const step = () => server.clock.advance(120_000);
  const submitListing = async (title: string, publish = false) => {
    const id = (await client.post('/assets', validAsset({ title }))).body.id as string;
    await uploadFile(server, server.seller.token, id, new TextEncoder().encode(title));
    step();
    assert.equal((await client.post(`/assets/${id}/submit`)).status, 200);
    if (publish) assert.equal((await admin(server, `/assets/${id}/approve`, 'POST')).status, 200);
    return id;
  };
  const submitVersion = async (assetId: string, version: string) => {
    const created = (await client.post(`/assets/${assetId}/versions`, { version })).body;
    const issued = (await client.post(`/assets/${assetId}/versions/${created.id}/upload-url`, { filename: 'v.zip' })).body;
    const put = await fetch(issued.signed_url, { method: 'PUT', body: new TextEncoder().encode(version), headers: { 'content-type': 'application/zip' } });
    assert.equal(put.status, 200);
    assert.equal((await client.post(`/assets/${assetId}/versions/${created.id}/confirm-file`, { storage_path: issued.storage_path, file_size: version.length })).status, 200);
    step();
    assert.equal((await client.post(`/assets/${assetId}/versions/${created.id}/submit`)).status, 200);
  };
  const live = [await submitListing('Live A', true), await submitListing('Live B', true)];
  await submitListing('New 1');
  await submitVersion(live[0]!, '1.1.0');
  await submitListing('New 2');
  await submitVersion(live[1]!, '2.0.0');
}

for (const store of storeNames) {
  const { test: storeTest } = store === 'postgres' ? pg : { test };
  describe(`the review queue on ${store}`, () => {
    storeTest('listings and versions together, oldest submission first, each with its kind; by kind; by cursor and offset', async () => {
      const server = await startServerOn(store, { serviceKey });
      try {
        await build(server);
        const all = await admin(server, '/moderation/queue');
        assert.equal(all.status, 200, JSON.stringify(all.body));
        assert.deepEqual(seen(all.body.items), ['listing:New 1', 'version:1.1.0', 'listing:New 2', 'version:2.0.0']);
        assert.equal(all.body.total, 4);
        assert.deepEqual(seen((await admin(server, '/moderation/queue?kind=listing')).body.items), ['listing:New 1', 'listing:New 2']);
        const versions = await admin(server, '/moderation/queue?kind=version');
        assert.deepEqual([seen(versions.body.items), versions.body.total], [['version:1.1.0', 'version:2.0.0'], 2]);

        // A page at a time by cursor: every item once, in order, across the two kinds.
        const paged: Item[] = [];
        for (let cursor: string | null = null, pages = 0; pages < 10; pages++) {
          const page: { status: number; body: { items: Item[]; next_cursor: string | null } } = await admin(server, `/moderation/queue?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
          assert.equal(page.status, 200);
          paged.push(...page.body.items);
          cursor = page.body.next_cursor;
          if (!cursor) break;
        }
        assert.deepEqual(seen(paged), seen(all.body.items));
        const byOffset = await admin(server, '/moderation/queue?limit=2&offset=1');
        assert.deepEqual([seen(byOffset.body.items), byOffset.body.has_more], [['version:1.1.0', 'listing:New 2'], true]);

        // Decided items leave the queue: the first version approved, the first listing rejected.
        const firstVersion = all.body.items[1] as Item;
        assert.equal((await admin(server, `/versions/${firstVersion.id}/approve`, 'POST')).status, 200);
        const rejected = await fetch(`${server.url}/api/admin/assets/${all.body.items[0].id}/reject`, {
          method: 'POST',
          headers: { authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ reason: 'Not a pack.' }),
        });
        assert.equal(rejected.status, 200);
        assert.deepEqual(seen((await admin(server, '/moderation/queue')).body.items), ['listing:New 2', 'version:2.0.0']);

        const wrongKind = await admin(server, '/moderation/queue?kind=bundle');
        assert.deepEqual([wrongKind.status, wrongKind.body.code, /kind/.test(wrongKind.body.error)], [400, 'INVALID_INPUT', true]);
      } finally {
        await server.close();
      }
    });
  });
}
