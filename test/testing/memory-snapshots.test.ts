import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import type { AssetRecord } from '../../core/ports/storage.js';

const at = '2026-01-01T00:00:00.000Z';
const asset = (id: string, slug: string): AssetRecord => ({
  id, owner_id: 'owner', title: 'T', slug, description: null, status: 'draft', visibility: 'public', pricing_type: 'free', price: null, is_free: true,
  version: '1.0.0', category_id: null, tags: [], scheduled_publish_at: null, download_count: 0, view_count: 0, file: null, review: null,
  created_at: at, updated_at: at, revision: 1,
});
async function* bytes(text: string) {
  yield new TextEncoder().encode(text);
}

test('memoryStorage: restore() puts back exactly the snapshot, after inserts, updates and deletes, as often as asked', async () => {
  const storage = memoryStorage();
  await storage.createAsset(asset('a', 'kept'));
  await storage.createAsset(asset('b', 'deleted-later'));
  const snap = storage.snapshot();
  for (let round = 0; round < 3; round++) {
    await storage.updateAsset('a', 1, { title: `changed ${round}`, updated_at: at });
    await storage.deleteAsset('b', 1);
    await storage.createAsset(asset(`c${round}`, 'new'));
    assert.equal((await storage.listAssets({ ownerId: 'owner', limit: 10, offset: 0 })).total, 2);
    storage.restore(snap);
    const list = await storage.listAssets({ ownerId: 'owner', limit: 10, offset: 0 });
    assert.deepEqual(list.items.map((a) => [a.id, a.title, a.revision]).sort(), [['a', 'T', 1], ['b', 'T', 1]]);
    assert.equal((await storage.createAsset(asset('x', 'new'))).outcome, 'created', 'the slug index came back too');
    assert.equal((await storage.createAsset(asset('y', 'kept'))).outcome, 'slug_taken');
    storage.restore(snap);
  }
});

test('memoryStorage: a later snapshot and an earlier one can both be restored; a record read out is a copy', async () => {
  const storage = memoryStorage();
  await storage.createAsset(asset('a', 'one'));
  const first = storage.snapshot();
  await storage.updateAsset('a', 1, { title: 'Second', updated_at: at });
  const second = storage.snapshot();
  await storage.updateAsset('a', 2, { title: 'Third', updated_at: at });
  storage.restore(first);
  assert.equal((await storage.getAsset('a'))!.title, 'T');
  storage.restore(second);
  const read = (await storage.getAsset('a'))!;
  assert.equal(read.title, 'Second');
  read.title = 'mutated by a caller';
  storage.restore(second);
  assert.equal((await storage.getAsset('a'))!.title, 'Second');
  assert.throws(() => storage.restore({} as never), /snapshot\(\)/);
});

test('memoryStorage: a token revoked or touched after a snapshot is as it was once restored', async () => {
  const storage = memoryStorage();
  const token = { id: 't', account_id: 'acc', name: 'n', prefix: 'smcp_x', hash: 'h', scopes: [], created_at: at, last_used_at: null, expires_at: null, revoked_at: null };
  await storage.insertToken(token);
  const snap = storage.snapshot();
  await storage.revokeToken('acc', 't', at);
  await storage.touchToken('t', at);
  storage.restore(snap);
  assert.deepEqual(await storage.findTokenByHash('h'), token);
});

test('memoryBlobs: restore() brings back the objects of the snapshot and forgets later ones', async () => {
  const blobs = memoryBlobs();
  await blobs.put('a', bytes('first'), { contentType: 'text/plain', maxBytes: 100 });
  const snap = blobs.snapshot();
  await blobs.put('a', bytes('replaced'), { contentType: 'text/plain', maxBytes: 100 });
  await blobs.put('b', bytes('new'), { contentType: 'text/plain', maxBytes: 100 });
  await blobs.delete('a');
  blobs.restore(snap);
  assert.equal((await blobs.head('a'))!.size, 5);
  assert.equal(await blobs.head('b'), null);
  assert.equal(blobs.size, 1);
});
