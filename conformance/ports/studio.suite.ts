import assert from 'node:assert/strict';
import { StudioKeyTaken, StudioParentFull, type StudioRecord, type StudioStoragePort } from '../../core/ports/studio.js';
import type { StudioKind } from '../../core/studio/resources.js';
import { countOf, registerGroups, withPeer as withPeerOf, type SuiteOptions } from './suite.js';

export type StudioGroup = 'records' | 'keys' | 'limits' | 'ordering' | 'removal' | 'atomicity';

export interface StudioSuiteOptions<S extends StudioStoragePort = StudioStoragePort> extends SuiteOptions<S, StudioGroup> {
  capabilities?: {
    /** Opens a second handle on the same data (another connection); concurrent calls are split between the two. */
    openPeer?: (studio: S) => Promise<StudioStoragePort & { close?: () => Promise<void> }>;
  };
}

let tick = 0;
/** A record with fresh ids and a distinct, increasing creation time. */
function record(kind: StudioKind, parent: Pick<StudioRecord, 'id' | 'project_id' | 'owner_id'> | null, overrides: Partial<StudioRecord> = {}): StudioRecord {
  const id = crypto.randomUUID();
  const at = new Date(Date.UTC(2026, 0, 1) + ++tick * 1000).toISOString();
  const owner = parent?.owner_id ?? crypto.randomUUID();
  return {
    id,
    kind,
    owner_id: owner,
    project_id: parent ? parent.project_id : id,
    parent_id: parent ? parent.id : owner,
    position: kind === 'column' || kind === 'card' ? Number.MAX_SAFE_INTEGER : null,
    data: { name: `${kind} ${tick}`, labels: [], nested: { deep: [1, 'two', null] } },
    created_at: at,
    updated_at: at,
    revision: 1,
    keys: [],
    ...overrides,
  };
}

/** A project with a board and one column, stored. */
async function board(studio: StudioStoragePort) {
  const project = record('project', null);
  const boardRecord = record('board', project);
  const column = record('column', boardRecord);
  await studio.insert([project, boardRecord, column]);
  return { project, board: boardRecord, column };
}

const ids = (records: StudioRecord[]) => records.map((r) => r.id);
const positions = (records: StudioRecord[]) => records.map((r) => r.position);
const dense = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The studio port's MUST rules (core/ports/studio.ts), run against any StudioStoragePort. */
export function runStudioSuite<S extends StudioStoragePort>(options: StudioSuiteOptions<S>): void {
  const withPeer = (studio: S, body: (pick: (i: number) => StudioStoragePort) => Promise<void>) => withPeerOf(studio, options.capabilities?.openPeer, body);

  registerGroups<S, StudioGroup>('studio port', options, {
    records: {
      'a record reads back exactly as inserted; an unknown id is null': async (studio) => {
        const { project, column } = await board(studio);
        assert.deepStrictEqual(await studio.get(project.id), project);
        assert.deepStrictEqual(await studio.get(column.id), { ...column, position: 0 });
        assert.equal(await studio.get(crypto.randomUUID()), null);
      },
      'insert is all or nothing: a taken id, in the store or in the batch, keeps none of the batch': async (studio) => {
        const { project } = await board(studio);
        const fresh = record('label', project);
        await assert.rejects(studio.insert([fresh, record('label', project, { id: project.id })]));
        assert.equal(await studio.get(fresh.id), null);
        const twin = record('label', project);
        await assert.rejects(studio.insert([twin, { ...record('label', project), id: twin.id }]));
        assert.equal(await studio.get(twin.id), null);
        assert.equal((await studio.listProject(project.id)).length, 3);
      },
      'update is a compare-and-set on the revision': async (studio) => {
        const { board: b } = await board(studio);
        const result = await studio.update(b.id, 1, { data: { name: 'Renamed' }, keys: [], updated_at: '2026-02-01T00:00:00.000Z' });
        assert.equal(result.outcome, 'updated');
        assert.deepStrictEqual(result.outcome === 'updated' && result.record, { ...b, data: { name: 'Renamed' }, updated_at: '2026-02-01T00:00:00.000Z', revision: 2 });
        assert.deepStrictEqual(await studio.update(b.id, 1, { data: {}, keys: [], updated_at: b.updated_at }), { outcome: 'stale' });
        assert.deepStrictEqual(await studio.update(crypto.randomUUID(), 1, { data: {}, keys: [], updated_at: b.updated_at }), { outcome: 'missing' });
      },
      'listChildren lists one kind under one parent, unordered kinds oldest first; listProject one project': async (studio) => {
        const { project, board: b, column } = await board(studio);
        const labels = [record('label', project), record('label', project), record('label', project)];
        await studio.insert([labels[2]!, labels[0]!, labels[1]!]);
        const other = record('project', null);
        await studio.insert([other, record('label', other)]);
        assert.deepStrictEqual(ids(await studio.listChildren(project.id, 'label')), ids(labels));
        assert.deepStrictEqual(ids(await studio.listChildren(project.id, 'board')), [b.id]);
        assert.equal(await studio.countChildren(project.id, 'label'), 3);
        assert.equal(await studio.countChildren(b.id, 'column'), 1);
        assert.equal(await studio.countChildren(crypto.randomUUID(), 'card'), 0);
        assert.deepStrictEqual(ids(await studio.listChildren(project.owner_id, 'project')), [project.id]);
        assert.deepStrictEqual(new Set(ids(await studio.listProject(project.id))), new Set([project.id, b.id, column.id, ...ids(labels)]));
      },
    },
    keys: {
      'a key is held once per project and kind: a second insert throws StudioKeyTaken and keeps none of its batch': async (studio) => {
        const { project } = await board(studio);
        await studio.insert([record('wiki_page', project, { keys: ['slug:"lore"'] })]);
        const bystander = record('label', project);
        await assert.rejects(studio.insert([bystander, record('wiki_page', project, { keys: ['slug:"lore"'] })]), (error: unknown) => error instanceof StudioKeyTaken && error.key === 'slug:"lore"');
        assert.equal(await studio.get(bystander.id), null);
        await assert.rejects(studio.insert([record('label', project, { keys: ['name:"x"'] }), record('label', project, { keys: ['name:"x"'] })]), StudioKeyTaken);
        // Another kind, or another project, may hold the same key.
        await studio.insert([record('label', project, { keys: ['slug:"lore"'] })]);
        const other = record('project', null);
        await studio.insert([other, record('wiki_page', other, { keys: ['slug:"lore"'] })]);
      },
      'update refuses a key another record holds, keeps its own, and releases the ones it drops': async (studio) => {
        const { project } = await board(studio);
        const a = record('wiki_page', project, { keys: ['slug:"a"'] });
        const b = record('wiki_page', project, { keys: ['slug:"b"'] });
        await studio.insert([a, b]);
        const at = '2026-02-01T00:00:00.000Z';
        assert.deepStrictEqual(await studio.update(b.id, 1, { data: {}, keys: ['slug:"a"'], updated_at: at }), { outcome: 'taken', key: 'slug:"a"' });
        assert.equal((await studio.update(a.id, 1, { data: { t: 1 }, keys: ['slug:"a"'], updated_at: at })).outcome, 'updated');
        assert.equal((await studio.update(a.id, 2, { data: {}, keys: ['slug:"c"'], updated_at: at })).outcome, 'updated');
        assert.equal((await studio.update(b.id, 1, { data: {}, keys: ['slug:"a"'], updated_at: at })).outcome, 'updated');
        assert.deepStrictEqual((await studio.get(b.id))?.keys, ['slug:"a"']);
      },
      'remove releases the keys of everything it removes': async (studio) => {
        const { project } = await board(studio);
        await studio.insert([record('wiki_page', project, { keys: ['slug:"lore"'] })]);
        assert.equal(await studio.remove(project.id), true);
        const again = record('project', null, { id: project.id, owner_id: project.owner_id });
        await studio.insert([again, record('wiki_page', again, { keys: ['slug:"lore"'] })]);
      },
    },
    limits: {
      'insert past a limit throws StudioParentFull and keeps none of its batch; other parents and kinds are not counted': async (studio) => {
        const { board: b, column } = await board(studio);
        await studio.insert([record('card', column), record('card', column)], { card: 3 });
        const third = record('card', column);
        await assert.rejects(studio.insert([third, record('card', column)], { card: 3 }), (error: unknown) => error instanceof StudioParentFull && error.kind === 'card' && error.limit === 3);
        assert.equal(await studio.get(third.id), null);
        assert.equal(await studio.countChildren(column.id, 'card'), 2);
        await studio.insert([third], { card: 3 });
        await studio.insert([record('column', b), record('card', column)], { column: 5 });
      },
      'a move into a full parent throws StudioParentFull and changes nothing; within the parent it is no new member': async (studio) => {
        const { board: b, column } = await board(studio);
        const full = record('column', b);
        await studio.insert([full]);
        await studio.insert([record('card', full), record('card', full)]);
        const card = record('card', column);
        await studio.insert([card]);
        await assert.rejects(studio.move(card.id, full.id, 0, '2026-03-01T00:00:00.000Z', { card: 2 }), StudioParentFull);
        assert.deepStrictEqual(await studio.get(card.id), { ...card, position: 0 });
        assert.equal((await studio.move(card.id, column.id, 0, '2026-03-01T00:00:00.000Z', { card: 1 }))?.position, 0);
      },
    },
    ordering: {
      'an ordered insert lands at its index, shifting later siblings; past the end is last': async (studio) => {
        const { column } = await board(studio);
        const [a, b, c, d] = [record('card', column), record('card', column), record('card', column, { position: 0 }), record('card', column, { position: 1 })];
        await studio.insert([a, b]);
        await studio.insert([c]);
        await studio.insert([d]);
        const listed = await studio.listChildren(column.id, 'card');
        assert.deepStrictEqual(ids(listed), [c.id, d.id, a.id, b.id]);
        assert.deepStrictEqual(positions(listed), dense(4));
      },
      'move within a parent and to another keeps both dense': async (studio) => {
        const { board: b, column } = await board(studio);
        const second = record('column', b);
        await studio.insert([second]);
        const cards = dense(4).map(() => record('card', column));
        await studio.insert(cards);
        const moved = await studio.move(cards[3]!.id, column.id, 0, '2026-03-01T00:00:00.000Z');
        assert.equal(moved?.position, 0);
        assert.equal(moved?.revision, 2);
        assert.equal(moved?.updated_at, '2026-03-01T00:00:00.000Z');
        assert.deepStrictEqual(ids(await studio.listChildren(column.id, 'card')), [cards[3]!.id, cards[0]!.id, cards[1]!.id, cards[2]!.id]);
        await studio.move(cards[0]!.id, second.id, 99, '2026-03-01T00:00:00.000Z');
        const left = await studio.listChildren(column.id, 'card');
        const right = await studio.listChildren(second.id, 'card');
        assert.deepStrictEqual(ids(left), [cards[3]!.id, cards[1]!.id, cards[2]!.id]);
        assert.deepStrictEqual(positions(left), dense(3));
        assert.deepStrictEqual(right.map((r) => [r.id, r.position, r.parent_id]), [[cards[0]!.id, 0, second.id]]);
        assert.equal(await studio.move(crypto.randomUUID(), column.id, 0, '2026-03-01T00:00:00.000Z'), null);
      },
    },
    removal: {
      'remove takes everything under the record and closes the gap among its siblings': async (studio) => {
        const { project, board: b, column } = await board(studio);
        const second = record('column', b);
        const third = record('column', b);
        await studio.insert([second, third]);
        const cards = [record('card', second), record('card', second)];
        await studio.insert(cards);
        assert.equal(await studio.remove(second.id), true);
        for (const gone of [second, ...cards]) assert.equal(await studio.get(gone.id), null);
        assert.deepStrictEqual((await studio.listChildren(b.id, 'column')).map((r) => [r.id, r.position]), [[column.id, 0], [third.id, 1]]);
        assert.equal(await studio.remove(second.id), false);
        assert.equal(await studio.remove(project.id), true);
        assert.deepStrictEqual(await studio.listProject(project.id), []);
      },
    },
    atomicity: {
      'concurrent moves leave every card once, at positions 0..n-1': async (studio) => {
        const { board: b, column } = await board(studio);
        const second = record('column', b);
        await studio.insert([second]);
        const cards = dense(12).map(() => record('card', column));
        await studio.insert(cards);
        await withPeer(studio, async (pick) => {
          await Promise.all(
            dense(40).map((i) => pick(i).move(cards[i % cards.length]!.id, i % 3 === 0 ? second.id : column.id, (i * 7) % 13, '2026-03-01T00:00:00.000Z')),
          );
        });
        const left = await studio.listChildren(column.id, 'card');
        const right = await studio.listChildren(second.id, 'card');
        assert.deepStrictEqual(positions(left), dense(left.length));
        assert.deepStrictEqual(positions(right), dense(right.length));
        assert.deepStrictEqual([...ids(left), ...ids(right)].sort(), ids(cards).sort());
      },
      'concurrent inserts at the same index all land, densely': async (studio) => {
        const { column } = await board(studio);
        await withPeer(studio, async (pick) => {
          await Promise.all(dense(20).map((i) => pick(i).insert([record('card', column, { position: 0 })])));
        });
        assert.deepStrictEqual(positions(await studio.listChildren(column.id, 'card')), dense(20));
      },
      'of concurrent inserts into a parent with room for 5, exactly 5 succeed': async (studio) => {
        const { column } = await board(studio);
        await withPeer(studio, async (pick) => {
          const { count } = await countOf(
            // A refused insert is the race's other outcome, counted here, not a failure of the test.
            dense(12).map((i) => pick(i).insert([record('card', column)], { card: 5 }).then(() => true, () => false)),
            (won) => won,
          );
          assert.equal(count, 5);
        });
        assert.deepStrictEqual(positions(await studio.listChildren(column.id, 'card')), dense(5));
      },
      'of concurrent inserts of one key, exactly one succeeds': async (studio) => {
        const { project } = await board(studio);
        await withPeer(studio, async (pick) => {
          const { count } = await countOf(
            // A refused insert is the race's other outcome, counted here, not a failure of the test.
            dense(8).map((i) => pick(i).insert([record('wiki_page', project, { keys: ['slug:"race"'] })]).then(() => true, () => false)),
            (won) => won,
          );
          assert.equal(count, 1);
        });
      },
      'of concurrent updates from one revision, exactly one wins': async (studio) => {
        const { board: b } = await board(studio);
        await withPeer(studio, async (pick) => {
          const { count } = await countOf(
            dense(8).map((i) => pick(i).update(b.id, 1, { data: { name: `n${i}` }, keys: [], updated_at: b.updated_at })),
            (result) => result.outcome === 'updated',
          );
          assert.equal(count, 1);
        });
        assert.equal((await studio.get(b.id))?.revision, 2);
      },
    },
  });
}
