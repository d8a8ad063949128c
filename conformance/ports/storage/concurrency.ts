import assert from 'node:assert/strict';
import type { StoragePort } from '../../../core/ports/storage.js';
import { assetRecord, at, imageInput, tokenRecord } from '../sample-records.js';
import { countOf } from '../suite.js';
import { owner, storedAsset, type StorageTests, type WithPeer } from './fixtures.js';

/** Stored records are copies: changing a record read or written changes nothing stored. */
export const copyTests: StorageTests = {
  'mutating a returned record changes nothing stored': async (storage) => {
    const asset = await storedAsset(storage);
    const read = (await storage.getAsset(asset.id))!;
    read.tags.push('mutated');
    read.title = 'mutated';
    const listed = (await storage.listAssets({ ownerId: asset.owner_id, limit: 1, offset: 0 })).items[0]!;
    listed.tags.length = 0;
    const account = (await storage.getAccount(asset.owner_id))!;
    account.plan_features.push('mutated');
    account.socials.twitter = 'mutated';
    assert.deepStrictEqual(await storage.getAsset(asset.id), asset);
    assert.deepStrictEqual((await storage.getAccount(asset.owner_id))?.plan_features, ['scheduled_publishing']);
    assert.equal((await storage.getAccount(asset.owner_id))?.socials.twitter, '@seller');
  },
  'mutating a record after storing it changes nothing stored': async (storage) => {
    const asset = assetRecord((await owner(storage)).id);
    const created = await storage.createAsset(asset);
    const expected = structuredClone(asset);
    asset.tags.push('mutated');
    if (created.outcome === 'created') created.asset.tags.push('mutated too');
    assert.deepStrictEqual(await storage.getAsset(asset.id), expected);
  },
};

/** Concurrent writes, split between the store and its peer when there is one: exactly one wins. */
export function atomicityTests<S extends StoragePort>(withPeer: WithPeer<S>): StorageTests<S> {
  return {
    'of 50 concurrent creates with one slug exactly one is created': async (storage) => {
      const ownerId = (await owner(storage)).id;
      await withPeer(storage, async (pick) => {
        const attempts = Array.from({ length: 50 }, (_, i) => pick(i).createAsset(assetRecord(ownerId, { slug: 'one-slug' })));
        const { results, count } = await countOf(attempts, (r) => r.outcome === 'created');
        assert.equal(count, 1);
        assert.equal(results.filter((r) => r.outcome === 'slug_taken').length, 49);
      });
      assert.equal((await storage.listAssets({ ownerId, limit: 100, offset: 0 })).total, 1);
    },
    'of concurrent updates from one revision exactly one applies': async (storage) => {
      const asset = await storedAsset(storage);
      await withPeer(storage, async (pick) => {
        const attempts = Array.from({ length: 10 }, (_, i) => pick(i).updateAsset(asset.id, 1, { title: `Title ${i}`, updated_at: at(10) }));
        const { results, count } = await countOf(attempts, (r) => r.outcome === 'updated');
        assert.equal(count, 1);
        const winner = results.find((r) => r.outcome === 'updated');
        assert.deepStrictEqual(await storage.getAsset(asset.id), winner?.outcome === 'updated' ? winner.asset : null);
      });
      assert.equal((await storage.getAsset(asset.id))?.revision, 2);
    },
    'concurrent addImage never passes the limit nor makes two primaries': async (storage) => {
      const asset = await storedAsset(storage);
      await withPeer(storage, async (pick) => {
        const attempts = Array.from({ length: 15 }, (_, i) => pick(i).addImage(imageInput(asset.id), 10));
        const { count } = await countOf(attempts, (r) => r.outcome === 'added');
        assert.equal(count, 10);
      });
      const gallery = await storage.listImages(asset.id);
      assert.equal(gallery.length, 10);
      assert.equal(gallery.filter((image) => image.is_primary).length, 1);
      assert.deepStrictEqual(gallery.map((image) => image.position).sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    },
    'concurrent arrangeImages and addImage never make two primaries nor lose an image': async (storage) => {
      const asset = await storedAsset(storage);
      const first = [imageInput(asset.id), imageInput(asset.id), imageInput(asset.id)];
      for (const image of first) assert.equal((await storage.addImage(image, 10)).outcome, 'added');
      const orders = [first.map((i) => i.id).reverse(), [first[1]!.id, first[0]!.id, first[2]!.id], [first[2]!.id, first[0]!.id, first[1]!.id]];
      const added = [imageInput(asset.id), imageInput(asset.id), imageInput(asset.id)];
      await withPeer(storage, async (pick) => {
        const results = await Promise.all([
          ...orders.flatMap((order, i) => [pick(i).arrangeImages(asset.id, order), pick(i + 1).addImage(added[i]!, 10)]),
        ]);
        for (const result of results) assert.ok(['arranged', 'mismatch', 'added'].includes(result.outcome), result.outcome);
      });
      const gallery = await storage.listImages(asset.id);
      assert.equal(gallery.length, 6, 'no image lost');
      assert.deepStrictEqual(new Set(gallery.map((image) => image.id)), new Set([...first, ...added].map((image) => image.id)));
      assert.equal(gallery.filter((image) => image.is_primary).length, 1, 'one primary');
      assert.equal(gallery[0]!.is_primary, true);
      assert.equal(new Set(gallery.map((image) => image.position)).size, 6, 'distinct positions');
    },
    'of concurrent deletes from one revision exactly one deletes': async (storage) => {
      const asset = await storedAsset(storage);
      await withPeer(storage, async (pick) => {
        const { count } = await countOf(
          Array.from({ length: 6 }, (_, i) => pick(i).deleteAsset(asset.id, 1)),
          (r) => r.outcome === 'deleted',
        );
        assert.equal(count, 1);
      });
    },
    'a revocation is seen at once by every handle': async (storage) => {
      const token = tokenRecord((await owner(storage)).id);
      await storage.insertToken(token);
      await withPeer(storage, async (pick) => {
        assert.ok(await pick(1).revokeToken(token.account_id, token.id, at(3)));
        for (const handle of [pick(0), pick(1)]) assert.equal((await handle.findTokenByHash(token.hash))?.revoked_at, at(3));
      });
    },
  };
}
