import assert from 'node:assert/strict';
import type { AssetRecord, ListPosition, StoragePort } from '../../../core/ports/storage.js';
import { seedListings } from '../../../core/ports/seed-listings.js';
import { accountRecord, assetRecord, at } from '../sample-records.js';
import { owner, type StorageTests, type WithPeer } from './fixtures.js';

type Page<R> = { items: R[]; total: number };

/**
 * Walks a list a keyset page at a time while `between(page number)` creates and deletes records
 * (on the store or its peer, concurrently with the read): every id seen, in the order seen.
 */
async function walk<R extends { id: string }>(read: (after?: ListPosition) => Promise<Page<R>>, key: (record: R) => string, between: (n: number) => Promise<void>): Promise<R[]> {
  const seen: R[] = [];
  let after: ListPosition | undefined;
  for (let n = 0; n < 1000; n++) {
    const [page] = await Promise.all([read(after), between(n)]);
    seen.push(...page.items);
    const last = page.items.at(-1);
    if (!last) return seen;
    after = { key: key(last), id: last.id };
  }
  throw new Error('the walk did not end');
}

/** Every record that existed from the start to the end of the walk was seen once; nothing twice. */
function assertOnceEach(seen: { id: string }[], stayed: Set<string>, what: string): void {
  const ids = seen.map((r) => r.id);
  assert.equal(new Set(ids).size, ids.length, `${what}: no record repeated across pages`);
  for (const id of stayed) assert.ok(ids.includes(id), `${what}: ${id}, there all along, was not skipped`);
}

const minutes = (i: number) => at(i % 7 === 0 ? 3 : i); // some share a created_at: the id orders them

async function createAll(storage: StoragePort, assets: AssetRecord[]): Promise<void> {
  for (const asset of assets) assert.equal((await storage.createAsset(asset)).outcome, 'created');
}

/** Keyset pages (`after`), kept totals and the bulk path (seedListings). */
export const listPageTests = (withPeer: WithPeer<StoragePort>): StorageTests => ({
  "listAssets' keyset pages never skip or repeat an asset while others are created and deleted": async (storage) => {
    const mine = (await owner(storage)).id;
    const first = Array.from({ length: 40 }, (_, i) => assetRecord(mine, { created_at: minutes(i), status: i % 3 ? 'draft' : 'pending' }));
    await createAll(storage, first);
    const doomed = new Set(first.filter((_, i) => i % 5 === 1).map((a) => a.id));
    await withPeer(storage, async (pick) => {
      const seen = await walk(
        (after) => pick(0).listAssets({ ownerId: mine, limit: 4, offset: 0, ...(after ? { after } : {}) }),
        (a) => a.created_at,
        async (n) => {
          if (n >= 12) return; // the tail would otherwise grow as fast as it is read
          const other = pick(n + 1);
          // New ones, newer and older than the page read, and one deletion per page.
          await other.createAsset(assetRecord(mine, { created_at: at(100 + n) }));
          await other.createAsset(assetRecord(mine, { created_at: at(-100 - n) }));
          const gone = first.filter((a) => doomed.has(a.id))[n];
          if (gone) assert.equal((await other.deleteAsset(gone.id, 1)).outcome, 'deleted');
        },
      );
      assertOnceEach(seen, new Set(first.filter((a) => !doomed.has(a.id)).map((a) => a.id)), 'listAssets');
      const keys = seen.map((a) => `${a.created_at} ${a.id}`);
      assert.deepEqual(keys, [...keys].sort().reverse(), 'newest first, id desc on a tie');
    });
  },
  "listAssets' keyset pages of one status match its offset pages": async (storage) => {
    const mine = (await owner(storage)).id;
    await createAll(storage, Array.from({ length: 13 }, (_, i) => assetRecord(mine, { created_at: minutes(i), status: i % 2 ? 'pending' : 'draft' })));
    const all = await storage.listAssets({ ownerId: mine, status: 'pending', limit: 100, offset: 0 });
    assert.equal(all.total, 6);
    const second = await storage.listAssets({ ownerId: mine, status: 'pending', limit: 4, offset: 0, after: { key: all.items[1]!.created_at, id: all.items[1]!.id } });
    assert.deepStrictEqual(second, { items: all.items.slice(2, 6), total: 6 });
    const gone = all.items[2]!;
    assert.equal((await storage.deleteAsset(gone.id, 1)).outcome, 'deleted');
    const afterGone = await storage.listAssets({ ownerId: mine, status: 'pending', limit: 2, offset: 0, after: { key: gone.created_at, id: gone.id } });
    assert.deepStrictEqual(afterGone, { items: all.items.slice(3, 5), total: 5 }, 'a page after a deleted asset starts where it was');
  },
  "listAssetsInStatus' keyset pages never skip or repeat while others are created and deleted": async (storage) => {
    const mine = (await owner(storage)).id;
    const first = Array.from({ length: 30 }, (_, i) => assetRecord(mine, { status: 'changes_requested', updated_at: minutes(i) }));
    await createAll(storage, first);
    const doomed = new Set(first.filter((_, i) => i % 4 === 2).map((a) => a.id));
    await withPeer(storage, async (pick) => {
      const seen = await walk(
        (after) => pick(0).listAssetsInStatus('changes_requested', 5, 0, after),
        (a) => a.updated_at,
        async (n) => {
          if (n >= 8) return;
          const other = pick(n + 1);
          await other.createAsset(assetRecord(mine, { status: 'changes_requested', updated_at: at(200 + n) }));
          await other.createAsset(assetRecord(mine, { status: 'changes_requested', updated_at: at(-200 - n) }));
          const gone = first.filter((a) => doomed.has(a.id))[n];
          if (gone) assert.equal((await other.deleteAsset(gone.id, 1)).outcome, 'deleted');
        },
      );
      assertOnceEach(seen, new Set(first.filter((a) => !doomed.has(a.id)).map((a) => a.id)), 'listAssetsInStatus');
      const keys = seen.map((a) => `${a.updated_at} ${a.id}`);
      assert.deepEqual(keys, [...keys].sort(), 'oldest change first, id asc on a tie');
    });
  },
  "listAccounts' keyset pages never skip or repeat while accounts are created": async (storage) => {
    const tag = crypto.randomUUID().slice(0, 8);
    const first = Array.from({ length: 12 }, (_, i) => accountRecord({ username: `kp-${tag}-${String(i * 2).padStart(2, '0')}` }));
    for (const account of first) await storage.insertAccount(account);
    const seen = await walk(
      (after) => storage.listAccounts(3, 0, after),
      (a) => a.username,
      async (n) => {
        if (n < 8) await storage.insertAccount(accountRecord({ username: `kp-${tag}-${String(n * 2 + 1).padStart(2, '0')}` }));
      },
    );
    assertOnceEach(seen, new Set(first.map((a) => a.id)), 'listAccounts');
    const names = seen.map((a) => a.username);
    assert.deepEqual(names, [...names].sort(), 'by username, byte order');
  },
  'totals are right after a create, a status change, an owner change and a delete': async (storage) => {
    const mine = (await owner(storage)).id;
    const totals = async () => ({
      all: (await storage.listAssets({ ownerId: mine, limit: 1, offset: 0 })).total,
      draft: (await storage.listAssets({ ownerId: mine, status: 'draft', limit: 1, offset: 0 })).total,
      pending: (await storage.listAssets({ ownerId: mine, status: 'pending', limit: 1, offset: 0 })).total,
      queue: (await storage.listAssetsInStatus('pending', 1, 0)).total,
    });
    const start = await totals();
    assert.deepStrictEqual(start, { all: 0, draft: 0, pending: 0, queue: start.queue });
    const [a, b] = [assetRecord(mine), assetRecord(mine)];
    await createAll(storage, [a, b]);
    assert.deepStrictEqual(await totals(), { all: 2, draft: 2, pending: 0, queue: start.queue });
    assert.equal((await storage.updateAsset(a.id, 1, { status: 'pending', updated_at: at(9) })).outcome, 'updated');
    assert.deepStrictEqual(await totals(), { all: 2, draft: 1, pending: 1, queue: start.queue + 1 });
    assert.equal((await storage.updateAsset(a.id, 2, { title: 'Only the title', updated_at: at(9) })).outcome, 'updated');
    assert.deepStrictEqual(await totals(), { all: 2, draft: 1, pending: 1, queue: start.queue + 1 }, 'a change that keeps the status keeps the totals');
    assert.equal((await storage.updateAsset(a.id, 3, { status: 'draft', updated_at: at(10) })).outcome, 'updated');
    assert.equal((await storage.deleteAsset(b.id, 1)).outcome, 'deleted');
    assert.deepStrictEqual(await totals(), { all: 1, draft: 1, pending: 0, queue: start.queue });
    const accounts = (await storage.listAccounts(1, 0)).total;
    await storage.insertAccount(accountRecord());
    assert.equal((await storage.listAccounts(1, 0)).total, accounts + 1);
  },
  'totals stay right under concurrent creates, moves and deletes': async (storage) => {
    const mine = (await owner(storage)).id;
    const made = Array.from({ length: 24 }, () => assetRecord(mine, { status: 'draft' }));
    await createAll(storage, made.slice(0, 12));
    await withPeer(storage, async (pick) => {
      await Promise.all([
        ...made.slice(12).map((asset, i) => pick(i).createAsset(asset)),
        ...made.slice(0, 6).map((asset, i) => pick(i + 1).updateAsset(asset.id, 1, { status: 'pending', updated_at: at(20) })),
        ...made.slice(6, 9).map((asset, i) => pick(i).deleteAsset(asset.id, 1)),
      ]);
    });
    assert.equal((await storage.listAssets({ ownerId: mine, limit: 1, offset: 0 })).total, 21);
    assert.equal((await storage.listAssets({ ownerId: mine, status: 'draft', limit: 1, offset: 0 })).total, 15);
    assert.equal((await storage.listAssets({ ownerId: mine, status: 'pending', limit: 100, offset: 0 })).total, 6);
  },
  // SQL stores answer offsets of 1,000 and more from anchors they keep (docs/adapters.md, "Offset
  // anchors"): a kept position must never outlive a write by another handle.
  'offset pages past 1,000 are the list from that position, on the very next call after another handle moves the list': async (storage) => {
    const mine = (await owner(storage)).id;
    await seedListings(storage, Array.from({ length: 2300 }, (_, i) => assetRecord(mine, { status: i % 2 ? 'pending' : 'draft', created_at: at(Math.floor(i / 3)), updated_at: at(Math.floor(i / 3)) })));
    const lists: [string, (limit: number, offset: number) => Promise<Page<AssetRecord>>][] = [
      ['listAssets', (limit, offset) => storage.listAssets({ ownerId: mine, limit, offset })],
      ['listAssets of a status', (limit, offset) => storage.listAssets({ ownerId: mine, status: 'pending', limit, offset })],
      ['listAssetsInStatus', (limit, offset) => storage.listAssetsInStatus('pending', limit, offset)],
    ];
    const pagesMatch = async (what: string) => {
      for (const [name, read] of lists) {
        const whole = await read(5000, 0);
        for (const offset of [999, 1000, 1001, 1150, 1999, 2000, 2001, whole.total - 1, whole.total]) {
          assert.deepStrictEqual(await read(5, offset), { items: whole.items.slice(offset, offset + 5), total: whole.total }, `${what}: ${name} at ${offset}`);
        }
      }
    };
    await pagesMatch('after the seed');
    await withPeer(storage, async (pick) => {
      const other = pick(1);
      const newest = assetRecord(mine, { status: 'pending', created_at: at(2000), updated_at: at(2000) });
      assert.equal((await other.createAsset(newest)).outcome, 'created');
      const doomed = (await storage.listAssets({ ownerId: mine, limit: 1, offset: 1500 })).items[0]!;
      assert.equal((await other.deleteAsset(doomed.id, doomed.revision)).outcome, 'deleted');
      await pagesMatch('after a create and a delete (the totals unchanged)');
      const moved = (await storage.listAssets({ ownerId: mine, status: 'pending', limit: 1, offset: 3 })).items[0]!;
      assert.equal((await other.updateAsset(moved.id, moved.revision, { status: 'draft', updated_at: at(3000) })).outcome, 'updated');
      await pagesMatch('after a status change');
      const oldest = (await storage.listAssetsInStatus('pending', 1, 0)).items[0]!;
      assert.equal((await other.updateAsset(oldest.id, oldest.revision, { title: 'Edited', updated_at: at(4000) })).outcome, 'updated');
      await pagesMatch('after an edit that moves a queued listing to the end');
    });
  },
  'seedListings loads many assets at once, listed and counted as if created one by one': async (storage) => {
    const mine = (await owner(storage)).id;
    const assets = Array.from({ length: 1234 }, (_, i) => assetRecord(mine, { created_at: at(i), status: i % 10 ? 'published' : 'pending' }));
    await seedListings(storage, assets);
    assert.deepStrictEqual(await storage.getAsset(assets[7]!.id), assets[7]);
    const page = await storage.listAssets({ ownerId: mine, limit: 3, offset: 0 });
    assert.deepStrictEqual(page, { items: assets.slice(-3).reverse(), total: 1234 });
    assert.equal((await storage.listAssets({ ownerId: mine, status: 'pending', limit: 1, offset: 0 })).total, 124);
    const next = await storage.listAssets({ ownerId: mine, limit: 2, offset: 0, after: { key: assets[5]!.created_at, id: assets[5]!.id } });
    assert.deepStrictEqual(next.items, [assets[4], assets[3]]);
    assert.equal((await storage.createAsset(assetRecord(mine))).outcome, 'created');
    assert.equal((await storage.listAssets({ ownerId: mine, limit: 1, offset: 0 })).total, 1235);
  },
});
