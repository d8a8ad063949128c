/**
 * The swap of a listing's live version (core/ports/versions.ts, swapVersion), tests of the group
 * `versions` (versions.suite.ts): the listing, the incoming version, the outgoing one and the
 * events in one change; nothing at all when any revision moved; one of concurrent swaps; the
 * replaced file kept by the outgoing version, never upload garbage.
 */
import assert from 'node:assert/strict';
import type { AssetRecord, StoragePort } from '../../core/ports/storage.js';
import type { VersionRecord, VersionSwap } from '../../core/ports/versions.js';
import { at, outboxEvent, uploadRecord } from './sample-records.js';
import type { StorageTests, WithPeer } from './storage/fixtures.js';
import { countOf } from './suite.js';
import { publishedListing, versionRecord, versionsPortOf, writtenEvents } from './version-fixtures.js';

/** A listing with a pending version, and the swap that approves it: the first, so the live one is written as a superseded record. */
async function pendingSwap(storage: StoragePort) {
  const { account, asset } = await publishedListing(storage);
  const incoming = versionRecord(asset, { version: '1.1.0', status: 'pending', submitted_at: at(5), review: null });
  assert.equal((await versionsPortOf(storage).createVersion(incoming)).outcome, 'created');
  const live = { file: incoming.file, version: incoming.version, title: 'Castle Pack II', tags: ['castle', 'Gothic'], updated_at: at(8) };
  const outgoing: VersionRecord = versionRecord(asset, { version: asset.version, status: 'superseded', file: asset.file, changes: {}, review: null, release_notes: '', decided_at: at(8) });
  const swap: VersionSwap = {
    assetId: asset.id,
    expectedAssetRevision: asset.revision,
    assetChanges: live,
    incoming: { id: incoming.id, expectedRevision: 1, changes: { status: 'approved', decided_at: at(8), previous_id: outgoing.id, updated_at: at(8) } },
    outgoing: { record: outgoing },
    events: [outboxEvent(account.id, asset.id, 'asset.version_approved', 8), outboxEvent(account.id, asset.id, 'asset.updated', 8)],
  };
  return { account, asset, incoming, outgoing, swap };
}

/** The listing and its versions as stored now, to show that a refused swap changed nothing. */
const snapshot = async (storage: StoragePort, asset: AssetRecord) => ({ asset: await storage.getAsset(asset.id), versions: await versionsPortOf(storage).listVersions(asset.id) });

export function swapTests<S extends StoragePort>(withPeer: WithPeer<S>): StorageTests<S> {
  return {
    'swap: the listing, the incoming version, the outgoing one (inserted the first time, updated at its revision after) and the events in one change': async (storage) => {
      const port = versionsPortOf(storage);
      const { account, asset, incoming, outgoing, swap } = await pendingSwap(storage);
      const swapped = await port.swapVersion(swap);
      const listing: AssetRecord = { ...asset, ...swap.assetChanges, revision: asset.revision + 1 };
      const approved: VersionRecord = { ...incoming, ...swap.incoming.changes, revision: 2 };
      assert.deepStrictEqual(swapped, { outcome: 'swapped', asset: listing, incoming: approved });
      assert.deepStrictEqual(await storage.getAsset(asset.id), listing);
      assert.deepStrictEqual(await port.getVersion(incoming.id), approved);
      assert.deepStrictEqual(await port.getVersion(outgoing.id), outgoing, 'the first live version, inserted as given');
      // The next version goes live the same way; the one live before is updated at its revision.
      const next = versionRecord(asset, { version: '1.2.0', status: 'pending', created_at: at(9), submitted_at: at(9) });
      assert.equal((await port.createVersion(next)).outcome, 'created');
      const approvedNext = outboxEvent(account.id, asset.id, 'asset.version_approved', 10);
      const again = await port.swapVersion({
        assetId: asset.id,
        expectedAssetRevision: listing.revision,
        assetChanges: { file: next.file, version: next.version, updated_at: at(10) },
        incoming: { id: next.id, expectedRevision: 1, changes: { status: 'approved', previous_id: incoming.id, updated_at: at(10) } },
        outgoing: { id: incoming.id, expectedRevision: 2, changes: { status: 'superseded', updated_at: at(10) } },
        events: [approvedNext],
      });
      assert.equal(again.outcome, 'swapped');
      assert.deepStrictEqual(await port.getVersion(incoming.id), { ...approved, status: 'superseded', updated_at: at(10), revision: 3 });
      assert.deepStrictEqual({ ...(await storage.getAsset(asset.id)) }, { ...listing, file: next.file, version: '1.2.0', updated_at: at(10), revision: listing.revision + 1 });
      assert.deepStrictEqual(await writtenEvents(storage), [...swap.events, approvedNext].map((e) => e.id), 'each swap’s events, in order');
    },
    'swap: stale when the listing’s, the incoming or the outgoing revision moved, or the outgoing record is already stored; nothing changes and no event is written': async (storage) => {
      const port = versionsPortOf(storage);
      const { asset, incoming, outgoing, swap } = await pendingSwap(storage);
      const before = await snapshot(storage, asset);
      const stale: VersionSwap[] = [
        { ...swap, expectedAssetRevision: asset.revision - 1 },
        { ...swap, incoming: { ...swap.incoming, expectedRevision: 2 } },
        { ...swap, outgoing: { record: { ...outgoing, id: incoming.id } } },
      ];
      for (const change of stale) assert.deepStrictEqual(await port.swapVersion(change), { outcome: 'stale' });
      assert.deepStrictEqual(await snapshot(storage, asset), before);
      // The outgoing version at a revision that moved: approve once, then try the next swap with the old revision.
      assert.equal((await port.swapVersion(swap)).outcome, 'swapped');
      const next = versionRecord(asset, { version: '1.2.0', status: 'pending', created_at: at(9), submitted_at: at(9) });
      await port.createVersion(next);
      const after = await snapshot(storage, asset);
      const moved = await port.swapVersion({
        assetId: asset.id,
        expectedAssetRevision: after.asset!.revision,
        assetChanges: { file: next.file, version: next.version, updated_at: at(10) },
        incoming: { id: next.id, expectedRevision: 1, changes: { status: 'approved', updated_at: at(10) } },
        outgoing: { id: incoming.id, expectedRevision: 1, changes: { status: 'superseded', updated_at: at(10) } },
        events: [outboxEvent(asset.owner_id, asset.id, 'asset.version_approved', 10)],
      });
      assert.deepStrictEqual(moved, { outcome: 'stale' });
      assert.deepStrictEqual(await snapshot(storage, asset), after);
      assert.deepStrictEqual(await writtenEvents(storage), swap.events.map((e) => e.id), 'only the swap that was made wrote its events');
      assert.deepStrictEqual(await port.swapVersion({ ...swap, assetId: crypto.randomUUID(), events: [] }), { outcome: 'missing' }, 'a listing that is gone');
      const unknown = { ...swap.incoming, id: crypto.randomUUID() };
      assert.deepStrictEqual(await port.swapVersion({ ...swap, incoming: unknown, events: [] }), { outcome: 'missing' }, 'an incoming version that is gone');
      const { asset: other } = await publishedListing(storage);
      const elsewhere = { ...swap, assetId: other.id, expectedAssetRevision: other.revision, events: [] };
      assert.deepStrictEqual(await port.swapVersion(elsewhere), { outcome: 'missing' }, 'an incoming version of another listing');
      assert.equal((await storage.getAsset(other.id))?.revision, other.revision);
    },
    'swap: of concurrent swaps at the same revisions, on this store and its peer, exactly one commits': async (storage) => {
      const { asset, swap } = await pendingSwap(storage);
      await withPeer(storage, async (pick) => {
        // Each its own outgoing record and events, as instances approving at once would make them.
        const tries = Array.from({ length: 6 }, (_, i) => ({
          ...swap,
          outgoing: { record: versionRecord(asset, { status: 'superseded', version: `0.${i}.0` }) },
          events: swap.events.map((event) => ({ ...event, id: crypto.randomUUID() })),
        }));
        const { results, count } = await countOf(
          tries.map((change, i) => versionsPortOf(pick(i)).swapVersion(change)),
          (r) => r.outcome === 'swapped',
        );
        assert.equal(count, 1);
        for (const r of results) assert.ok(r.outcome === 'swapped' || r.outcome === 'stale', r.outcome);
      });
      const stored = await storage.getAsset(asset.id);
      assert.equal(stored?.revision, asset.revision + 1, 'one swap moved the listing');
      assert.equal((await versionsPortOf(storage).listVersions(asset.id)).length, 2, 'the incoming version and one outgoing record');
      assert.equal((await writtenEvents(storage)).length, swap.events.length, 'one swap’s events');
    },
    'swap: with images, the listing’s images are replaced by them in the same change, in their order; stale (changing nothing) when the listing’s images are not the ones named': async (storage) => {
      const port = versionsPortOf(storage);
      const { asset, incoming, swap } = await pendingSwap(storage);
      for (const n of [0, 1, 2]) {
        const storage_path = `assets/${asset.id}/images/${crypto.randomUUID()}/old-${n}.webp`;
        const added = await storage.addImage({ id: crypto.randomUUID(), asset_id: asset.id, storage_path, public_url: `https://market.example/${storage_path}`, content_type: 'image/webp', file_size: 100 + n, created_at: at(2) }, 10);
        assert.equal(added.outcome, 'added');
      }
      const old = await storage.listImages(asset.id);
      const gallery = incoming.gallery!;
      const images = { gallery, replacing: old.map((image) => image.id).reverse() };
      assert.deepStrictEqual(await port.swapVersion({ ...swap, expectedAssetRevision: asset.revision - 1, images }), { outcome: 'stale' });
      const missingOne = { gallery, replacing: images.replacing.slice(1) };
      assert.deepStrictEqual(await port.swapVersion({ ...swap, images: missingOne }), { outcome: 'stale' }, 'an image added since the read (one the swap does not name)');
      assert.deepStrictEqual(await storage.listImages(asset.id), old, 'a stale swap changed no image');
      assert.equal((await port.swapVersion({ ...swap, images })).outcome, 'swapped');
      assert.deepStrictEqual(await storage.listImages(asset.id), gallery, 'the gallery, primary first, then by position');
      const withImages = await storage.getAssetWithImages?.(asset.id);
      if (withImages) assert.deepStrictEqual(withImages.images, gallery);
    },
    'swap: the replaced file stays the outgoing version’s, never upload garbage (unlike updateAsset’s replaced file)': async (storage) => {
      const port = versionsPortOf(storage);
      const { asset, incoming, outgoing, swap } = await pendingSwap(storage);
      const upload = uploadRecord(asset.id, 'file', { storage_path: incoming.file!.storage_path, state: 'confirmed', size: incoming.file!.file_size });
      await storage.recordUpload(upload);
      assert.equal((await port.swapVersion(swap)).outcome, 'swapped');
      const replaced = asset.file!.storage_path;
      assert.equal(outgoing.file?.storage_path, replaced);
      const garbage = await storage.listUploadGarbage(at(100_000), 100);
      assert.ok(!garbage.includes(replaced), 'the outgoing version’s file is not garbage');
      assert.ok(!garbage.includes(upload.storage_path), 'nor the live one');
      assert.equal((await storage.getUpload(replaced))?.state, 'confirmed', 'its upload is kept as it was');
    },
  };
}
