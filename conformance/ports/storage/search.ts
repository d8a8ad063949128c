import assert from 'node:assert/strict';
import type { AssetRecord, StoragePort } from '../../../core/ports/storage.js';
import { seedListings } from '../../../core/ports/seed-listings.js';
import { assetRecord, at } from '../sample-records.js';
import { owner, type StorageTests } from './fixtures.js';

/** The owner's listings of `titles` (slug given or made), created a minute apart: the last is the newest. */
async function listings(storage: StoragePort, ownerId: string, made: [title: string, slug?: string, status?: AssetRecord['status']][]): Promise<AssetRecord[]> {
  const assets: AssetRecord[] = [];
  for (const [i, [title, slug, status]] of made.entries()) {
    const asset = assetRecord(ownerId, { title, ...(slug ? { slug } : {}), ...(status ? { status } : {}), created_at: at(i) });
    assert.equal((await storage.createAsset(asset)).outcome, 'created');
    assets.push(asset);
  }
  return assets;
}

const titles = (page: { items: AssetRecord[] }) => page.items.map((asset) => asset.title);

/** listAssets with `search` (AssetQuery.search): title or slug, A-Z without case, everything else exactly. */
export const searchTests: StorageTests = {
  "listAssets' search finds the owner's listings whose title or slug contains the text, newest first, with their total": async (storage) => {
    const mine = (await owner(storage)).id;
    await listings(storage, mine, [['Dark FOREST tiles'], ['Castle walls', 'forest-castle'], ['Desert dunes'], ['forest floor']]);
    // Another seller's match is not the owner's.
    await listings(storage, (await owner(storage)).id, [['Forest of another seller']]);
    const found = await storage.listAssets({ ownerId: mine, limit: 10, offset: 0, search: 'forest' });
    assert.deepStrictEqual(titles(found), ['forest floor', 'Castle walls', 'Dark FOREST tiles']);
    assert.equal(found.total, 3);
    assert.deepStrictEqual(titles(await storage.listAssets({ ownerId: mine, limit: 10, offset: 0, search: 'FoReSt-CA' })), ['Castle walls'], 'the slug, its case folded too');
    assert.deepStrictEqual(await storage.listAssets({ ownerId: mine, limit: 10, offset: 0, search: 'jungle' }), { items: [], total: 0 });
    assert.deepStrictEqual(await storage.listAssets({ ownerId: crypto.randomUUID(), limit: 10, offset: 0, search: 'forest' }), { items: [], total: 0 });
  },
  "listAssets' search folds A-Z only: other letters compare exactly": async (storage) => {
    const mine = (await owner(storage)).id;
    await listings(storage, mine, [['ÉCOLE pack'], ['école set'], ['Straße signs'], ['STRASSE posts']]);
    const search = async (text: string) => titles(await storage.listAssets({ ownerId: mine, limit: 10, offset: 0, search: text }));
    assert.deepStrictEqual(await search('école'), ['école set'], 'é does not find É');
    assert.deepStrictEqual(await search('ÉCOLE'), ['ÉCOLE pack'], 'É does not find é');
    assert.deepStrictEqual(await search('Cole'), ['école set', 'ÉCOLE pack'], 'the ASCII letters around them fold');
    assert.deepStrictEqual(await search('straße'), ['Straße signs']);
    assert.deepStrictEqual(await search('strasse'), ['STRASSE posts'], 'ß is not ss');
  },
  "listAssets' search takes %, _ and \\ as themselves": async (storage) => {
    const mine = (await owner(storage)).id;
    await listings(storage, mine, [['100% free'], ['1000 free'], ['snake_case props'], ['snakeXcase props'], ['back\\slash'], ['backslash'], ['a*b?c[d]']]);
    const search = async (text: string) => titles(await storage.listAssets({ ownerId: mine, limit: 10, offset: 0, search: text }));
    assert.deepStrictEqual(await search('0%'), ['100% free']);
    assert.deepStrictEqual(await search('%'), ['100% free']);
    assert.deepStrictEqual(await search('e_c'), ['snake_case props']);
    assert.deepStrictEqual(await search('_'), ['snake_case props']);
    assert.deepStrictEqual(await search('k\\s'), ['back\\slash']);
    assert.deepStrictEqual(await search('\\'), ['back\\slash']);
    assert.deepStrictEqual(await search('*b?c[d]'), ['a*b?c[d]']);
    assert.deepStrictEqual(await search("o'"), []);
  },
  "listAssets' search combines with a status, and its keyset and offset pages cover the matches once each": async (storage) => {
    const mine = (await owner(storage)).id;
    const made = await listings(
      storage,
      mine,
      Array.from({ length: 13 }, (_, i) => [i % 3 === 0 ? `Tile set ${i}` : `Rock ${i}`, undefined, i % 2 ? 'pending' : 'draft'] as [string, undefined, AssetRecord['status']]),
    );
    // Two matches share a created_at: the id orders them.
    const tie = assetRecord(mine, { title: 'Tile set tie', created_at: at(9), status: 'pending', id: 'ffffffff-ffff-4fff-8fff-ffffffffffff' });
    assert.equal((await storage.createAsset(tie)).outcome, 'created');
    const matches = [...made.filter((asset) => asset.title.startsWith('Tile')), tie].sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
    const all = await storage.listAssets({ ownerId: mine, limit: 100, offset: 0, search: 'tile' });
    assert.deepStrictEqual(all, { items: matches, total: 6 });
    const pending = await storage.listAssets({ ownerId: mine, status: 'pending', limit: 100, offset: 0, search: 'TILE' });
    assert.deepStrictEqual(pending, { items: matches.filter((asset) => asset.status === 'pending'), total: 3 });
    assert.deepStrictEqual(await storage.listAssets({ ownerId: mine, limit: 2, offset: 2, search: 'tile' }), { items: matches.slice(2, 4), total: 6 });
    // Keyset pages of two through the matches: each once, in order.
    const seen: AssetRecord[] = [];
    let page = await storage.listAssets({ ownerId: mine, limit: 2, offset: 0, search: 'tile' });
    while (page.items.length) {
      assert.equal(page.total, 6);
      seen.push(...page.items);
      const last = page.items.at(-1)!;
      page = await storage.listAssets({ ownerId: mine, limit: 2, offset: 0, search: 'tile', after: { key: last.created_at, id: last.id } });
    }
    assert.deepStrictEqual(seen, matches);
    const firstPending = pending.items[0]!;
    const afterFirst = await storage.listAssets({ ownerId: mine, status: 'pending', limit: 5, offset: 0, search: 'tile', after: { key: firstPending.created_at, id: firstPending.id } });
    assert.deepStrictEqual(afterFirst, { items: pending.items.slice(1), total: 3 });
  },
  "listAssets' search follows every write: a changed title or slug, a deleted listing, seeded ones": async (storage) => {
    const mine = (await owner(storage)).id;
    const [lantern, lamp] = await listings(storage, mine, [['Brass lantern set', 'brass-lantern-set'], ['Oil lamp', 'oil-lamp']]);
    const search = async (text: string) => titles(await storage.listAssets({ ownerId: mine, limit: 10, offset: 0, search: text }));
    assert.deepStrictEqual(await search('lantern'), ['Brass lantern set']);
    assert.equal((await storage.updateAsset(lantern!.id, 1, { title: 'Brass candle set', updated_at: at(5) })).outcome, 'updated');
    assert.deepStrictEqual(await search('lantern'), ['Brass candle set'], 'the slug still holds it');
    assert.equal((await storage.updateAsset(lantern!.id, 2, { slug: 'brass-candle-set', updated_at: at(6) })).outcome, 'updated');
    assert.deepStrictEqual(await search('lantern'), [], 'neither holds it now');
    assert.deepStrictEqual(await search('candle'), ['Brass candle set']);
    assert.equal((await storage.updateAsset(lamp!.id, 1, { description: 'a lantern in the text only', updated_at: at(7) })).outcome, 'updated');
    assert.deepStrictEqual(await search('lantern'), [], 'the description is not searched');
    assert.equal((await storage.deleteAsset(lantern!.id, 3)).outcome, 'deleted');
    assert.deepStrictEqual(await search('candle'), []);
    await seedListings(storage, [assetRecord(mine, { title: 'Seeded candle', created_at: at(8) })]);
    assert.deepStrictEqual(await search('candle'), ['Seeded candle']);
  },
  "listAssets' search takes quotes, spaces and words of any length as themselves": async (storage) => {
    const mine = (await owner(storage)).id;
    await listings(storage, mine, [['Say "hello" pack'], ['Say hello pack'], ['AND OR NOT'], ['x'], ['xy z'], ['Twelve \u{1F332} trees']]);
    const search = async (text: string) => titles(await storage.listAssets({ ownerId: mine, limit: 10, offset: 0, search: text }));
    assert.deepStrictEqual(await search('"hello"'), ['Say "hello" pack']);
    assert.deepStrictEqual(await search('y "h'), ['Say "hello" pack']);
    assert.deepStrictEqual(await search('say hello'), ['Say hello pack']);
    assert.deepStrictEqual(await search('and or not'), ['AND OR NOT'], 'no word of a query language');
    assert.deepStrictEqual(await search('x'), ['xy z', 'x'], 'one character');
    assert.deepStrictEqual(await search('y z'), ['xy z'], 'three with a space');
    assert.deepStrictEqual(await search('\u{1F332} t'), ['Twelve \u{1F332} trees'], 'a character beyond the BMP counts once');
  },
  "listAssets' search gives the same answer for a text many listings of the store hold": async (storage) => {
    const mine = (await owner(storage)).id;
    const other = (await owner(storage)).id;
    // More listings holding the text than any store's index should hand over whole: a store may read the owner's list instead.
    await seedListings(storage, Array.from({ length: 1_200 }, (_, i) => assetRecord(other, { title: `Common crate ${i}`, created_at: at(i % 50) })));
    await listings(storage, mine, [['Common crate mine'], ['Rare barrel'], ['Crate of commons']]);
    const found = await storage.listAssets({ ownerId: mine, limit: 10, offset: 0, search: 'common' });
    assert.deepStrictEqual(titles(found), ['Crate of commons', 'Common crate mine']);
    assert.equal(found.total, 2);
    assert.deepStrictEqual(titles(await storage.listAssets({ ownerId: mine, limit: 10, offset: 0, search: 'crate' })), ['Crate of commons', 'Common crate mine']);
    assert.deepStrictEqual(titles(await storage.listAssets({ ownerId: mine, limit: 10, offset: 0, search: 'barrel' })), ['Rare barrel']);
    const theirs = await storage.listAssets({ ownerId: other, limit: 3, offset: 0, search: 'crate 11' });
    assert.equal(theirs.total, 111, 'crate 11 and crate 110 to crate 1199');
  },
};
