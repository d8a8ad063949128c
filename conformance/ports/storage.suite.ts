import assert from 'node:assert/strict';
import type { AssetRecord, StoragePort } from '../../core/ports/storage.js';
import { accountRecord, assetRecord, at, imageInput, tokenRecord, uploadRecord } from './records.js';
import { countOf, registerGroups, withPeer as withPeerOf, type SuiteOptions } from './suite.js';

export type StorageGroup = 'accounts' | 'tokens' | 'categories' | 'assets' | 'uploads' | 'images' | 'copies' | 'atomicity' | 'changes';

export interface StorageSuiteOptions<S extends StoragePort = StoragePort> extends SuiteOptions<S, StorageGroup> {
  capabilities?: {
    /**
     * Opens a second handle on the data of `storage` (another connection, as another process
     * would have). The atomicity tests then split their concurrent calls between the two.
     */
    openPeer?: (storage: S) => Promise<StoragePort & { close?: () => Promise<void> }>;
  };
}

/** An owner stored, as every asset needs. */
async function owner(storage: StoragePort) {
  const account = accountRecord();
  await storage.insertAccount(account);
  return account;
}

async function storedAsset(storage: StoragePort, overrides: Partial<AssetRecord> = {}) {
  const asset = assetRecord((await owner(storage)).id, overrides);
  const result = await storage.createAsset(asset);
  assert.equal(result.outcome, 'created');
  return asset;
}

/** The port's MUST rules and record round trips, run against any StoragePort. */
export function runStorageSuite<S extends StoragePort>(options: StorageSuiteOptions<S>): void {
  /** Each call alternately on the store and on its peer, when the adapter can open one. */
  const withPeer = (storage: S, body: (pick: (i: number) => StoragePort) => Promise<void>) => withPeerOf(storage, options.capabilities?.openPeer, body);

  /** The store's changeVersion, awaited when it answers with a promise; an adapter without one skips the group 'changes' with its reason. */
  const versionOf = (storage: StoragePort): (() => Promise<number>) => {
    assert.equal(typeof storage.changeVersion, 'function', 'changeVersion is optional: an adapter without it skips the group "changes" (its reads are then never cached)');
    return async () => {
      const answer = storage.changeVersion!();
      assert.ok(typeof answer === 'number' || answer instanceof Promise, 'changeVersion answers a number or a promise of one');
      const version = await answer;
      assert.equal(typeof version, 'number');
      return version;
    };
  };

  registerGroups<S, StorageGroup>('storage port', options, {
    accounts: {
      'an account reads back exactly as inserted': async (storage) => {
        const account = accountRecord({ bio: 'Builds castles', is_restricted: true, plan_features: [] });
        await storage.insertAccount(account);
        assert.deepStrictEqual(await storage.getAccount(account.id), account);
        assert.equal(await storage.getAccount(crypto.randomUUID()), null);
      },
      'findAccountByUsername finds exactly that username': async (storage) => {
        const account = await owner(storage);
        assert.deepStrictEqual(await storage.findAccountByUsername(account.username), account);
        assert.equal(await storage.findAccountByUsername(account.username.toUpperCase()), null);
        assert.equal(await storage.findAccountByUsername('nobody-here'), null);
      },
      'insertAccount throws on a taken id or username': async (storage) => {
        const account = await owner(storage);
        await assert.rejects(storage.insertAccount(accountRecord({ id: account.id })));
        await assert.rejects(storage.insertAccount(accountRecord({ username: account.username })));
      },
      'updateAccount changes the given fields only; null for a missing account': async (storage) => {
        const account = await owner(storage);
        const changes = { display_name: null, payouts_connected: false, hire: { available: false, rate: null, contact: 'mail' }, updated_at: at(5) };
        const updated = await storage.updateAccount(account.id, changes);
        assert.deepStrictEqual(updated, { ...account, ...changes });
        assert.deepStrictEqual(await storage.getAccount(account.id), { ...account, ...changes });
        assert.equal(await storage.updateAccount(crypto.randomUUID(), { updated_at: at(5) }), null);
      },
      'ping resolves': async (storage) => {
        await storage.ping();
      },
    },

    tokens: {
      'a token reads back by id and by hash': async (storage) => {
        const token = tokenRecord((await owner(storage)).id, { expires_at: at(600), scopes: ['tokens:read'] });
        await storage.insertToken(token);
        assert.deepStrictEqual(await storage.getToken(token.id), token);
        assert.deepStrictEqual(await storage.findTokenByHash(token.hash), token);
        assert.equal(await storage.findTokenByHash('0'.repeat(64)), null);
      },
      "listTokens gives the account's live tokens, newest first": async (storage) => {
        const mine = (await owner(storage)).id;
        const theirs = (await owner(storage)).id;
        const older = tokenRecord(mine, { created_at: at(1), id: '00000000-0000-4000-8000-000000000001' });
        const tieLow = tokenRecord(mine, { created_at: at(2), id: '00000000-0000-4000-8000-000000000002' });
        const tieHigh = tokenRecord(mine, { created_at: at(2), id: '00000000-0000-4000-8000-000000000003' });
        const revoked = tokenRecord(mine, { created_at: at(3), revoked_at: at(4) });
        for (const token of [tieLow, older, revoked, tieHigh, tokenRecord(theirs)]) await storage.insertToken(token);
        assert.deepStrictEqual(await storage.listTokens(mine), [tieHigh, tieLow, older]);
      },
      'revokeToken keeps the first revocation and is seen by findTokenByHash': async (storage) => {
        const account = (await owner(storage)).id;
        const token = tokenRecord(account);
        await storage.insertToken(token);
        assert.deepStrictEqual(await storage.revokeToken(account, token.id, at(10)), { ...token, revoked_at: at(10) });
        assert.equal((await storage.findTokenByHash(token.hash))?.revoked_at, at(10));
        assert.equal((await storage.revokeToken(account, token.id, at(20)))?.revoked_at, at(10));
        assert.deepStrictEqual(await storage.listTokens(account), []);
      },
      "revokeToken is null for another account's token and for an unknown id": async (storage) => {
        const token = tokenRecord((await owner(storage)).id);
        await storage.insertToken(token);
        assert.equal(await storage.revokeToken((await owner(storage)).id, token.id, at(10)), null);
        assert.equal(await storage.revokeToken(token.account_id, crypto.randomUUID(), at(10)), null);
        assert.equal((await storage.getToken(token.id))?.revoked_at, null);
      },
      'touchToken records the last use': async (storage) => {
        const token = tokenRecord((await owner(storage)).id);
        await storage.insertToken(token);
        await storage.touchToken(token.id, at(30));
        assert.equal((await storage.findTokenByHash(token.hash))?.last_used_at, at(30));
      },
    },

    categories: {
      'categories read back, listed by name': async (storage) => {
        const tools = { id: crypto.randomUUID(), slug: 'tools', name: 'Tools' };
        const audio = { id: crypto.randomUUID(), slug: 'audio', name: 'Audio' };
        const maps = { id: crypto.randomUUID(), slug: 'maps', name: 'Maps' };
        for (const category of [tools, audio, maps]) await storage.insertCategory(category);
        assert.deepStrictEqual(await storage.getCategory(maps.id), maps);
        assert.equal(await storage.getCategory(crypto.randomUUID()), null);
        assert.deepStrictEqual(await storage.listCategories(), [audio, maps, tools]);
      },
      'a renamed category keeps its id and slug and moves in the order': async (storage) => {
        const props = { id: crypto.randomUUID(), slug: 'props', name: 'Props' };
        const audio = { id: crypto.randomUUID(), slug: 'audio', name: 'Audio' };
        for (const category of [props, audio]) await storage.insertCategory(category);
        const renamed = { ...props, name: 'Animated props' };
        assert.deepStrictEqual(await storage.renameCategory(props.id, 'Animated props'), renamed);
        assert.deepStrictEqual(await storage.getCategory(props.id), renamed);
        assert.deepStrictEqual(await storage.listCategories(), [renamed, audio]);
        assert.equal(await storage.renameCategory(crypto.randomUUID(), 'Nothing'), null);
      },
    },

    assets: {
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
    },

    uploads: {
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
    },

    images: {
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
    },

    copies: {
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
    },

    atomicity: {
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
    },

    // The core caches what it read until changeVersion() moves (docs/performance.md): a write it
    // does not see would serve stale data, a revoked token included.
    changes: {
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
          ['addImage', () => storage.addImage(imageInput(asset.id), 10)],
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
    },
  });
}
