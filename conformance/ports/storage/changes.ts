import assert from 'node:assert/strict';
import type { StoragePort } from '../../../core/ports/storage.js';
import { accountRecord, assetRecord, at, imageInput, tokenRecord, uploadRecord } from '../sample-records.js';
import { owner, storedAsset, versionOf, type StorageTests, type WithPeer } from './fixtures.js';

// The core caches what it read until changeVersion() moves (docs/performance.md): a write it
// does not see would serve stale data, a revoked token included.
/** changeVersion: still while reading, moved by every write, by this handle or another. */
export function changeTests<S extends StoragePort>(withPeer: WithPeer<S>): StorageTests<S> {
  return {
    'changeVersion stays the same while only reading': async (storage) => {
      const version = versionOf(storage);
      const asset = await storedAsset(storage);
      const before = await version();
      await storage.getAsset(asset.id);
      await storage.listAssets({ ownerId: asset.owner_id, limit: 10, offset: 0 });
      await storage.getAccount(asset.owner_id);
      await storage.listImages(asset.id);
      await storage.listCategories();
      await storage.ping();
      assert.equal(await version(), before);
      // Asked many times at once, as concurrent requests do: every answer is the same.
      assert.deepStrictEqual(new Set(await Promise.all(Array.from({ length: 20 }, version))), new Set([before]));
    },
    'changeVersion moves with every kind of write': async (storage) => {
      const version = versionOf(storage);
      const account = accountRecord();
      const token = tokenRecord(account.id);
      const asset = assetRecord(account.id);
      const upload = uploadRecord(asset.id, 'image');
      const category = { id: crypto.randomUUID(), slug: 'props', name: 'Props' };
      const image = imageInput(asset.id);
      // touchToken is not here: a token's last use need not move it (the core keeps the use it recorded).
      const writes: [string, () => Promise<unknown>][] = [
        ['insertAccount', () => storage.insertAccount(account)],
        ['updateAccount', () => storage.updateAccount(account.id, { is_suspended: true, updated_at: at(1) })],
        ['insertToken', () => storage.insertToken(token)],
        ['revokeToken', () => storage.revokeToken(account.id, token.id, at(3))],
        ['insertCategory', () => storage.insertCategory(category)],
        ['renameCategory', () => storage.renameCategory(category.id, 'Scenery')],
        ['createAsset', () => storage.createAsset(asset)],
        ['updateAsset', () => storage.updateAsset(asset.id, 1, { title: 'Changed', updated_at: at(4) })],
        ['recordUpload', () => storage.recordUpload(upload)],
        ['addImage', () => storage.addImage(image, 10)],
        ['arrangeImages', () => storage.arrangeImages(asset.id, [image.id])],
        ['deleteAsset', () => storage.deleteAsset(asset.id, 2)],
      ];
      for (const [name, write] of writes) {
        const before = await version();
        await write();
        assert.notEqual(await version(), before, `changeVersion did not move after ${name}`);
      }
    },
    'changeVersion moves when another handle writes': async (storage) => {
      const version = versionOf(storage);
      const token = tokenRecord((await owner(storage)).id);
      await storage.insertToken(token);
      await withPeer(storage, async (pick) => {
        const before = await version();
        await pick(1).revokeToken(token.account_id, token.id, at(3));
        assert.notEqual(await version(), before);
      });
    },
    // changeVersions (optional, with changeVersion): the callers' version moves with accounts and
    // tokens, by this handle or another, and is what lets a listing's write keep every caller.
    'changeVersions: the callers version moves with every write to accounts and tokens, and all with every write': async (storage) => {
      if (typeof storage.changeVersions !== 'function') return;
      const both = async () => {
        const answer = await storage.changeVersions!();
        assert.equal(typeof answer.all, 'number');
        assert.equal(typeof answer.callers, 'number');
        return answer;
      };
      const account = accountRecord();
      const token = tokenRecord(account.id);
      const callerWrites: [string, (on: StoragePort) => Promise<unknown>][] = [
        ['insertAccount', (on) => on.insertAccount(account)],
        ['updateAccount', (on) => on.updateAccount(account.id, { is_suspended: true, updated_at: at(1) })],
        ['insertToken', (on) => on.insertToken(token)],
        ['revokeToken', (on) => on.revokeToken(account.id, token.id, at(3))],
      ];
      await withPeer(storage, async (pick) => {
        for (const [index, [name, write]] of callerWrites.entries()) {
          const before = await both();
          // Alternately through this handle and the other one.
          await write(pick(index % 2));
          const after = await both();
          assert.notEqual(after.callers, before.callers, `the callers version did not move after ${name}`);
          assert.notEqual(after.all, before.all, `changeVersions().all did not move after ${name}`);
        }
      });
      const asset = assetRecord(account.id);
      const before = await both();
      assert.equal((await storage.createAsset(asset)).outcome, 'created');
      const after = await both();
      assert.notEqual(after.all, before.all, 'changeVersions().all did not move after createAsset');
    },
    // An asynchronous version may share one question among concurrent callers: only among those
    // that asked before it was sent, never with one that asks after a write resolved.
    'a call made after a write resolved answers a new number, even while earlier calls are answering': async (storage) => {
      const version = versionOf(storage);
      const token = tokenRecord((await owner(storage)).id);
      await storage.insertToken(token);
      await withPeer(storage, async (pick) => {
        let before = await version();
        const writes: [string, () => Promise<unknown>][] = [
          ['revokeToken through the peer', () => pick(1).revokeToken(token.account_id, token.id, at(3))],
          ['updateAccount through this handle', () => pick(0).updateAccount(token.account_id, { bio: 'moved', updated_at: at(4) })],
        ];
        for (const [name, write] of writes) {
          // Asked before the write: each may answer from before or after it.
          const earlier = Array.from({ length: 5 }, version);
          assert.ok(await write());
          const after = await version();
          await Promise.all(earlier);
          assert.notEqual(after, before, `${name}: a call made after it resolved answered the version from before it`);
          before = after;
        }
      });
    },
  };
}
