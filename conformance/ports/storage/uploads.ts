import assert from 'node:assert/strict';
import type { StoragePort } from '../../../core/ports/storage.js';
import { at, imageInput, uploadRecord } from '../sample-records.js';
import { countOf } from '../suite.js';
import { storedAsset, type StorageTests, type WithPeer } from './fixtures.js';

/** Uploads: lookups, state moves and claims, garbage, storage use; and leases. */
export function uploadTests<S extends StoragePort>(withPeer: WithPeer<S>): StorageTests<S> {
  return {
    'an issued upload reads back by storage path and by public URL': async (storage) => {
      const asset = await storedAsset(storage);
      const file = uploadRecord(asset.id, 'file');
      const image = uploadRecord(asset.id, 'image');
      await storage.recordUpload(file);
      await storage.recordUpload(image);
      assert.deepStrictEqual(await storage.getUpload(file.storage_path), file);
      assert.deepStrictEqual(await storage.findUploadByPublicUrl(image.public_url!), image);
      assert.equal(await storage.getUpload(`assets/${asset.id}/files/none/x.zip`), null);
      assert.equal(await storage.findUploadByPublicUrl('https://market.example/none.png'), null);
    },
    'setUploadState moves only from the given states, and never for a deleted listing': async (storage) => {
      const asset = await storedAsset(storage);
      const upload = uploadRecord(asset.id);
      await storage.recordUpload(upload);
      assert.equal(await storage.setUploadState(upload.storage_path, ['uploaded'], 'confirmed'), false);
      assert.equal(await storage.setUploadState(upload.storage_path, ['issued'], 'receiving'), true);
      assert.equal(await storage.setUploadState(upload.storage_path, ['issued'], 'receiving'), false);
      assert.equal(await storage.setUploadState(upload.storage_path, ['issued', 'receiving'], 'uploaded', 1234), true);
      assert.deepStrictEqual(await storage.getUpload(upload.storage_path), { ...upload, state: 'uploaded', size: 1234 });
      // Without a size, the size stays.
      assert.equal(await storage.setUploadState(upload.storage_path, ['uploaded'], 'confirmed'), true);
      assert.deepStrictEqual(await storage.getUpload(upload.storage_path), { ...upload, state: 'confirmed', size: 1234 });
      const other = uploadRecord(asset.id);
      await storage.recordUpload(other);
      assert.equal((await storage.deleteAsset(asset.id, 1)).outcome, 'deleted');
      assert.equal(await storage.setUploadState(other.storage_path, ['issued'], 'receiving'), false);
      assert.equal(await storage.setUploadState(`assets/${asset.id}/files/none/x.zip`, ['issued'], 'receiving'), false);
      // Nothing is recorded for a listing that is gone.
      const late = uploadRecord(asset.id);
      await storage.recordUpload(late);
      assert.equal(await storage.getUpload(late.storage_path), null);
    },
    'of concurrent claims of one upload exactly one wins': async (storage) => {
      const asset = await storedAsset(storage);
      const upload = uploadRecord(asset.id);
      await storage.recordUpload(upload);
      await withPeer(storage, async (pick) => {
        const { count } = await countOf(
          Array.from({ length: 8 }, (_, i) => pick(i).setUploadState(upload.storage_path, ['issued'], 'receiving')),
          (won) => won,
        );
        assert.equal(count, 1);
      });
    },
    'garbage: uploads of deleted listings, replaced files, and expired uploads nothing points at': async (storage) => {
      const asset = await storedAsset(storage);
      const expired = uploadRecord(asset.id, 'file', { expires_at: at(10) });
      const fresh = uploadRecord(asset.id, 'file', { expires_at: at(500) });
      const confirmed = uploadRecord(asset.id, 'file', { expires_at: at(10), state: 'confirmed', size: 5 });
      const image = uploadRecord(asset.id, 'image', { expires_at: at(10) });
      for (const upload of [expired, fresh, confirmed, image]) await storage.recordUpload(upload);
      // The listing points at `confirmed` as its file, and at `image` (still 'uploaded': a confirm under way).
      const file = { storage_path: confirmed.storage_path, file_size: 5, content_type: 'application/zip', confirmed_at: at(11) };
      assert.equal((await storage.updateAsset(asset.id, 1, { file, updated_at: at(11) })).outcome, 'updated');
      assert.equal((await storage.addImage({ ...imageInput(asset.id), storage_path: image.storage_path, public_url: image.public_url! }, 10)).outcome, 'added');
      assert.deepStrictEqual(await storage.listUploadGarbage(at(100), 10), [expired.storage_path]);
      assert.deepStrictEqual(await storage.listUploadGarbage(at(5), 10), []);
      // A new file replaces `confirmed`: from that change on, it is garbage whatever its expiry.
      const next = { ...file, storage_path: fresh.storage_path };
      assert.equal((await storage.updateAsset(asset.id, 2, { file: next, updated_at: at(12) })).outcome, 'updated');
      assert.deepStrictEqual(new Set(await storage.listUploadGarbage(at(5), 10)), new Set([confirmed.storage_path]));
      await storage.forgetUploads([confirmed.storage_path, expired.storage_path]);
      assert.deepStrictEqual(await storage.listUploadGarbage(at(100), 10), []);
      assert.equal(await storage.getUpload(expired.storage_path), null);
      // Deleting the listing makes every upload of it garbage, expired or not, until forgotten.
      assert.equal((await storage.deleteAsset(asset.id, 3)).outcome, 'deleted');
      const left = new Set([fresh.storage_path, image.storage_path]);
      assert.deepStrictEqual(new Set(await storage.listUploadGarbage(at(0), 10)), left);
      assert.equal((await storage.listUploadGarbage(at(0), 1)).length, 1);
      await storage.forgetUploads([...left]);
      assert.deepStrictEqual(await storage.listUploadGarbage(at(1000), 10), []);
    },
    'reserveUpload: a reservation counts until the upload is confirmed or forgotten; one past the quota changes nothing': async (storage) => {
      const asset = await storedAsset(storage);
      const other = await storedAsset(storage, { owner_id: asset.owner_id });
      const [a, b, image] = [uploadRecord(asset.id), uploadRecord(other.id), uploadRecord(asset.id, 'image')];
      for (const upload of [a, b, image]) await storage.recordUpload(upload);
      assert.equal(await storage.reserveUpload(a.storage_path, 200, 300), true);
      assert.equal(await storage.storageUse(asset.owner_id), 200);
      assert.equal(await storage.reserveUpload(b.storage_path, 101, 300), false, 'past the quota');
      assert.equal(await storage.storageUse(asset.owner_id), 200, 'a refused reservation changes nothing');
      assert.equal(await storage.reserveUpload(b.storage_path, 100, 300), true);
      // Shrinking is always granted; growing needs the room; no quota grants anything.
      assert.equal(await storage.reserveUpload(a.storage_path, 150, 100), true);
      assert.equal(await storage.reserveUpload(image.storage_path, 51, 300), false);
      assert.equal(await storage.reserveUpload(image.storage_path, 10_000, null), true);
      assert.equal(await storage.reserveUpload(image.storage_path, 0, null), true);
      assert.equal(await storage.storageUse(asset.owner_id), 250);
      // Confirmed, an upload counts its size (no longer its reservation) and reserves no more.
      assert.equal(await storage.setUploadState(a.storage_path, ['issued'], 'confirmed', 120), true);
      assert.equal(await storage.storageUse(asset.owner_id), 220);
      assert.equal(await storage.reserveUpload(a.storage_path, 1, null), false);
      // Forgotten, it gives everything back; so does a deleted listing.
      await storage.forgetUploads([b.storage_path]);
      assert.equal(await storage.storageUse(asset.owner_id), 120);
      assert.equal(await storage.reserveUpload(b.storage_path, 1, null), false, 'gone');
      assert.equal(await storage.reserveUpload(image.storage_path, 180, 300), true);
      assert.equal((await storage.deleteAsset(asset.id, 1)).outcome, 'deleted');
      assert.equal(await storage.storageUse(asset.owner_id), 0);
    },
    "reserveUpload: a file upload does not count its listing's confirmed file (the one it replaces)": async (storage) => {
      const asset = await storedAsset(storage);
      const other = await storedAsset(storage, { owner_id: asset.owner_id });
      const current = uploadRecord(asset.id, 'file', { state: 'confirmed', size: 100 });
      await storage.recordUpload(current);
      const [replacement, image, elsewhere] = [uploadRecord(asset.id), uploadRecord(asset.id, 'image'), uploadRecord(other.id)];
      for (const upload of [replacement, image, elsewhere]) await storage.recordUpload(upload);
      assert.equal(await storage.reserveUpload(replacement.storage_path, 250, 300), true);
      assert.equal(await storage.storageUse(asset.owner_id), 350, 'both count until the old file goes');
      assert.equal(await storage.reserveUpload(image.storage_path, 1, 400), true, 'an image counts the file: 351');
      assert.equal(await storage.reserveUpload(elsewhere.storage_path, 50, 400), false, "another listing's file counts it too: 401");
    },
    'of concurrent reservations past the quota, the granted ones never exceed it': async (storage) => {
      const asset = await storedAsset(storage);
      const uploads = Array.from({ length: 12 }, (_, i) => uploadRecord(asset.id, i % 2 ? 'file' : 'image'));
      for (const upload of uploads) await storage.recordUpload(upload);
      await withPeer(storage, async (pick) => {
        const { count } = await countOf(
          uploads.map((upload, i) => pick(i).reserveUpload(upload.storage_path, 100, 450)),
          (won) => won,
        );
        assert.equal(count, 4);
      });
      assert.equal(await storage.storageUse(asset.owner_id), 400);
    },
    "storageUse sums the account's uploaded and confirmed bytes": async (storage) => {
      const asset = await storedAsset(storage);
      const other = await storedAsset(storage);
      const uploads = [
        uploadRecord(asset.id, 'file', { state: 'confirmed', size: 100 }),
        uploadRecord(asset.id, 'image', { state: 'uploaded', size: 20 }),
        uploadRecord(asset.id, 'file', { state: 'issued', size: null }),
        uploadRecord(other.id, 'file', { state: 'confirmed', size: 7 }),
      ];
      for (const upload of uploads) await storage.recordUpload(upload);
      assert.equal(await storage.storageUse(asset.owner_id), 120);
      assert.equal(await storage.storageUse(other.owner_id), 7);
      assert.equal(await storage.storageUse(crypto.randomUUID()), 0);
    },
    'a lease is held by one holder until it expires': async (storage) => {
      assert.equal(await storage.tryLease('job', 'a', 1000, 500), true);
      assert.equal(await storage.tryLease('job', 'b', 1200, 500), false);
      assert.equal(await storage.tryLease('job', 'a', 1300, 500), true);
      assert.equal(await storage.tryLease('other-job', 'b', 1300, 500), true);
      assert.equal(await storage.tryLease('job', 'b', 1799, 500), false);
      assert.equal(await storage.tryLease('job', 'b', 1800, 500), true);
      assert.equal(await storage.tryLease('job', 'a', 1900, 500), false);
      await withPeer(storage, async (pick) => {
        const { count } = await countOf(
          Array.from({ length: 6 }, (_, i) => pick(i).tryLease('race', `holder-${i}`, 5000, 1000)),
          (won) => won,
        );
        assert.equal(count, 1);
      });
    },
  };
}
