import assert from 'node:assert/strict';
import type { AssetRecord } from '../../../core/ports/storage.js';
import { assetRecord, at, imageInput, uploadRecord } from '../sample-records.js';
import { owner, storedAsset, type StorageTests } from './fixtures.js';

/** Assets: round trips, slugs, pages, revisions, schedules, reviews, deletion. */
export const assetTests: StorageTests = {
  'an asset reads back exactly as created': async (storage) => {
    const category = { id: crypto.randomUUID(), slug: 'props', name: 'Props' };
    await storage.insertCategory(category);
    const asset = assetRecord((await owner(storage)).id, { description: 'Stone walls', category_id: category.id, scheduled_publish_at: at(900) });
    assert.deepStrictEqual(await storage.createAsset(asset), { outcome: 'created', asset });
    assert.deepStrictEqual(await storage.getAsset(asset.id), asset);
    const free = await storedAsset(storage, { pricing_type: 'free', price: null, is_free: true, tags: [] });
    assert.deepStrictEqual(await storage.getAsset(free.id), free);
    assert.equal(await storage.getAsset(crypto.randomUUID()), null);
  },
  'a taken slug is slug_taken and stores nothing': async (storage) => {
    const first = await storedAsset(storage);
    const second = assetRecord(first.owner_id, { slug: first.slug });
    assert.deepStrictEqual(await storage.createAsset(second), { outcome: 'slug_taken' });
    assert.equal(await storage.getAsset(second.id), null);
  },
  "listAssets pages the owner's assets newest first, with the total": async (storage) => {
    const mine = (await owner(storage)).id;
    const made: AssetRecord[] = [];
    for (let i = 0; i < 5; i++) {
      // Two share a created_at: the id orders them.
      const asset = assetRecord(mine, { created_at: at(i === 4 ? 3 : i), id: `00000000-0000-4000-8000-00000000000${i}`, status: i % 2 ? 'pending' : 'draft' });
      assert.equal((await storage.createAsset(asset)).outcome, 'created');
      made.push(asset);
    }
    await storedAsset(storage);
    const newestFirst = [made[4], made[3], made[2], made[1], made[0]];
    assert.deepStrictEqual(await storage.listAssets({ ownerId: mine, limit: 2, offset: 0 }), { items: newestFirst.slice(0, 2), total: 5 });
    assert.deepStrictEqual(await storage.listAssets({ ownerId: mine, limit: 2, offset: 4 }), { items: newestFirst.slice(4), total: 5 });
    assert.deepStrictEqual(await storage.listAssets({ ownerId: mine, status: 'pending', limit: 10, offset: 0 }), { items: [made[3], made[1]], total: 2 });
    assert.deepStrictEqual(await storage.listAssets({ ownerId: mine, status: 'archived', limit: 10, offset: 0 }), { items: [], total: 0 });
  },
  'updateAsset applies the changes, bumps the revision and returns the previous record': async (storage) => {
    const asset = await storedAsset(storage);
    const file = { storage_path: `assets/${asset.id}/files/x/pack.zip`, file_size: 10, content_type: 'application/zip', confirmed_at: at(7) };
    const changes = { title: 'Renamed', price: 12.5, tags: ['new'], file, updated_at: at(7) };
    const result = await storage.updateAsset(asset.id, 1, changes);
    const expected = { ...asset, ...changes, revision: 2 };
    assert.deepStrictEqual(result, { outcome: 'updated', asset: expected, previous: asset });
    assert.deepStrictEqual(await storage.getAsset(asset.id), expected);
    const cleared = await storage.updateAsset(asset.id, 2, { file: null, description: 'd', updated_at: at(8) });
    assert.equal(cleared.outcome === 'updated' && cleared.asset.file, null);
  },
  'listDueScheduled lists the scheduled assets due by now, earliest first, at most limit': async (storage) => {
    const mine = (await owner(storage)).id;
    const make = async (status: AssetRecord['status'], minutes: number | null, id: string) => {
      const asset = assetRecord(mine, { id, status, scheduled_publish_at: minutes === null ? null : at(minutes) });
      assert.equal((await storage.createAsset(asset)).outcome, 'created');
      return asset;
    };
    const later = await make('scheduled', 5, '00000000-0000-4000-8000-000000000001');
    const first = await make('scheduled', 1, '00000000-0000-4000-8000-000000000002');
    const tieB = await make('scheduled', 3, '00000000-0000-4000-8000-000000000004');
    const tieA = await make('scheduled', 3, '00000000-0000-4000-8000-000000000003');
    await make('scheduled', 20, '00000000-0000-4000-8000-000000000005');
    await make('pending', 1, '00000000-0000-4000-8000-000000000006');
    await make('draft', null, '00000000-0000-4000-8000-000000000007');
    assert.deepStrictEqual(await storage.listDueScheduled(at(5), 10), [first, tieA, tieB, later]);
    assert.deepStrictEqual(await storage.listDueScheduled(at(5), 2), [first, tieA]);
    assert.deepStrictEqual(await storage.listDueScheduled(at(0), 10), []);
  },
  'listAssetsInStatus pages every owner\'s assets in one status, oldest change first, with the total': async (storage) => {
    const one = (await owner(storage)).id;
    const two = (await owner(storage)).id;
    const made: AssetRecord[] = [];
    for (let i = 0; i < 4; i++) {
      const asset = assetRecord(i % 2 ? one : two, { status: 'pending', updated_at: at(i === 3 ? 8 : 10 - i), id: `00000000-0000-4000-8000-00000000000${i}` });
      assert.equal((await storage.createAsset(asset)).outcome, 'created');
      made.push(asset);
    }
    await storedAsset(storage, { status: 'draft' });
    const oldestFirst = [made[2], made[3], made[1], made[0]];
    assert.deepStrictEqual(await storage.listAssetsInStatus('pending', 10, 0), { items: oldestFirst, total: 4 });
    assert.deepStrictEqual(await storage.listAssetsInStatus('pending', 2, 1), { items: oldestFirst.slice(1, 3), total: 4 });
    assert.deepStrictEqual(await storage.listAssetsInStatus('archived', 10, 0), { items: [], total: 0 });
  },
  'a review reads back as written and can be cleared': async (storage) => {
    const asset = await storedAsset(storage);
    const review = { status: 'rejected' as const, reason: 'The archive is empty.', reviewed_at: at(3) };
    const result = await storage.updateAsset(asset.id, 1, { status: 'rejected', review, updated_at: at(3) });
    assert.equal(result.outcome === 'updated' && result.asset.review?.reason, review.reason);
    assert.deepStrictEqual((await storage.getAsset(asset.id))?.review, review);
    await storage.updateAsset(asset.id, 2, { review: null, updated_at: at(4) });
    assert.equal((await storage.getAsset(asset.id))?.review, null);
  },
  'updateAsset with an old revision is stale and changes nothing': async (storage) => {
    const asset = await storedAsset(storage);
    assert.equal((await storage.updateAsset(asset.id, 1, { title: 'One', updated_at: at(7) })).outcome, 'updated');
    assert.deepStrictEqual(await storage.updateAsset(asset.id, 1, { title: 'Two', updated_at: at(8) }), { outcome: 'stale' });
    assert.equal((await storage.getAsset(asset.id))?.title, 'One');
    assert.deepStrictEqual(await storage.updateAsset(crypto.randomUUID(), 1, { updated_at: at(8) }), { outcome: 'missing' });
  },
  'a slug change keeps slugs unique and frees the old slug': async (storage) => {
    const first = await storedAsset(storage);
    const second = await storedAsset(storage);
    assert.deepStrictEqual(await storage.updateAsset(second.id, 1, { slug: first.slug, updated_at: at(9) }), { outcome: 'slug_taken' });
    assert.equal((await storage.getAsset(second.id))?.slug, second.slug);
    assert.equal((await storage.updateAsset(first.id, 1, { slug: 'renamed-slug', updated_at: at(9) })).outcome, 'updated');
    assert.equal((await storage.createAsset(assetRecord(first.owner_id, { slug: first.slug }))).outcome, 'created');
  },
  'deleteAsset removes the asset with its images and uploads': async (storage) => {
    const asset = await storedAsset(storage);
    const upload = uploadRecord(asset.id);
    await storage.recordUpload(upload);
    const added = await storage.addImage(imageInput(asset.id), 10);
    assert.equal(added.outcome, 'added');
    assert.deepStrictEqual(await storage.deleteAsset(asset.id, 2), { outcome: 'stale' });
    const result = await storage.deleteAsset(asset.id, 1);
    assert.deepStrictEqual(result, { outcome: 'deleted', asset, images: [added.outcome === 'added' && added.image], uploads: [upload] });
    assert.equal(await storage.getAsset(asset.id), null);
    assert.deepStrictEqual(await storage.listImages(asset.id), []);
    assert.equal(await storage.getUpload(upload.storage_path), null);
    assert.deepStrictEqual(await storage.deleteAsset(asset.id, 1), { outcome: 'missing' });
    assert.equal((await storage.createAsset(assetRecord(asset.owner_id, { slug: asset.slug }))).outcome, 'created');
  },
};

/** An asset's images: the primary, positions, the limit. */
export const imageTests: StorageTests = {
  'the first image is primary, later ones follow in position; limit and exists are kept': async (storage) => {
    const asset = await storedAsset(storage);
    const first = imageInput(asset.id);
    const second = imageInput(asset.id);
    assert.deepStrictEqual(await storage.addImage(first, 2), { outcome: 'added', image: { ...first, position: 0, is_primary: true } });
    assert.deepStrictEqual(await storage.addImage(second, 2), { outcome: 'added', image: { ...second, position: 1, is_primary: false } });
    assert.deepStrictEqual(await storage.addImage({ ...first, id: crypto.randomUUID() }, 2), { outcome: 'exists', image: { ...first, position: 0, is_primary: true } });
    assert.deepStrictEqual(await storage.addImage(imageInput(asset.id), 2), { outcome: 'limit' });
    assert.deepStrictEqual(await storage.addImage(imageInput(crypto.randomUUID()), 2), { outcome: 'missing' });
    assert.deepStrictEqual(await storage.listImages(asset.id), [
      { ...first, position: 0, is_primary: true },
      { ...second, position: 1, is_primary: false },
    ]);
  },
  'getAssetWithImages answers what getAsset and listImages answer, in one read': async (storage) => {
    // A store without it: the core reads the two one after the other, which must agree the same way.
    const read =
      storage.getAssetWithImages?.bind(storage) ??
      (async (id: string) => {
        const asset = await storage.getAsset(id);
        return asset && { asset, images: await storage.listImages(id) };
      });
    const asset = await storedAsset(storage);
    assert.deepStrictEqual(await read(asset.id), { asset, images: [] });
    const [first, second] = [imageInput(asset.id), imageInput(asset.id)];
    for (const image of [first, second]) assert.equal((await storage.addImage(image, 10)).outcome, 'added');
    assert.deepStrictEqual(await read(asset.id), { asset: await storage.getAsset(asset.id), images: await storage.listImages(asset.id) });
    assert.deepStrictEqual((await read(asset.id))?.images, [
      { ...first, position: 0, is_primary: true },
      { ...second, position: 1, is_primary: false },
    ]);
    assert.equal(await read(crypto.randomUUID()), null);
  },
  'arrangeImages puts the gallery in the order given, the first the only primary; a list that is not the gallery changes nothing': async (storage) => {
    const asset = await storedAsset(storage);
    const [a, b, c] = [imageInput(asset.id), imageInput(asset.id), imageInput(asset.id)];
    for (const image of [a, b, c]) assert.equal((await storage.addImage(image, 10)).outcome, 'added');
    const gallery = [
      { ...c, position: 0, is_primary: true },
      { ...a, position: 1, is_primary: false },
      { ...b, position: 2, is_primary: false },
    ];
    assert.deepStrictEqual(await storage.arrangeImages(asset.id, [c.id, a.id, b.id]), { outcome: 'arranged', images: gallery });
    assert.deepStrictEqual(await storage.listImages(asset.id), gallery);
    assert.deepStrictEqual((await storage.getAssetWithImages?.(asset.id))?.images ?? gallery, gallery);
    // Missing one, one twice, one unknown, one too many: each a mismatch with the gallery as it is.
    const unknown = crypto.randomUUID();
    for (const ids of [[c.id, a.id], [c.id, a.id, a.id], [c.id, a.id, unknown], [c.id, a.id, b.id, unknown], []]) {
      assert.deepStrictEqual(await storage.arrangeImages(asset.id, ids), { outcome: 'mismatch', images: gallery });
    }
    assert.deepStrictEqual(await storage.listImages(asset.id), gallery);
    // Back to the first order, then an added image comes last and is not primary.
    assert.equal((await storage.arrangeImages(asset.id, [a.id, b.id, c.id])).outcome, 'arranged');
    const d = imageInput(asset.id);
    assert.deepStrictEqual(await storage.addImage(d, 10), { outcome: 'added', image: { ...d, position: 3, is_primary: false } });
    assert.deepStrictEqual((await storage.listImages(asset.id)).map((image) => [image.id, image.position, image.is_primary]), [
      [a.id, 0, true],
      [b.id, 1, false],
      [c.id, 2, false],
      [d.id, 3, false],
    ]);
    assert.deepStrictEqual(await storage.arrangeImages(crypto.randomUUID(), []), { outcome: 'missing' });
    // An asset without images: the empty list is its whole gallery.
    assert.deepStrictEqual(await storage.arrangeImages((await storedAsset(storage)).id, []), { outcome: 'arranged', images: [] });
  },
};
