import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pluralKey, studioKinds, studioResources, type StudioKind } from '../../core/studio/resources.js';
import { as, type TestServer } from '../fixtures/server.js';
import { collectionPath, createOneOfEach, studioBackends } from '../fixtures/studio.js';

type Doc = Record<string, any>;
const pluralKeyOf = (kind: StudioKind) => pluralKey(studioResources[kind]);

/**
 * The document with every id replaced by a description of what it names (its kind and title or
 * name, and its parent's), and unordered lists sorted: two documents of the same project content
 * are equal in this form whatever their ids.
 */
function withoutIds(doc: Doc): Doc {
  const names = new Map<string, string>();
  const label = (kind: string, item: Doc) => `${kind}:${item.title ?? item.name ?? item.code}`;
  names.set(doc.project.id, label('project', doc.project));
  for (const kind of studioKinds) if (kind !== 'project') for (const item of doc[pluralKeyOf(kind)]) names.set(item.id, label(kind, item));
  const swap = (value: unknown): unknown => (typeof value === 'string' && names.has(value) ? names.get(value) : Array.isArray(value) ? value.map(swap).sort() : value);
  const out: Doc = { format: doc.format, version: doc.version };
  for (const kind of studioKinds) {
    const items = kind === 'project' ? [doc.project] : doc[pluralKeyOf(kind)];
    out[kind] = items.map((item: Doc) => Object.fromEntries(Object.entries(item).map(([k, v]) => [k, swap(v)]))).map((item: Doc) => JSON.stringify(item)).sort();
  }
  return out;
}

for (const backend of studioBackends) {
  describe(`Creator Studio export and import on ${backend.name}`, () => {
    let server: TestServer;
    let document: Doc;
    let projectCount: () => Promise<number>;
    before(async () => {
      server = await backend.start();
      const client = as(server, server.seller.token);
      const made = await createOneOfEach(server, server.seller.token);
      // More than one of a kind, orders that differ from creation, a page tree, references both ways.
      const doing = (await client.post(collectionPath('column', made.board), { name: 'Doing', position: 0 })).body.id;
      const feature = (await client.post(collectionPath('label', made.project), { name: 'feature', colour: '#0000ff' })).body.id;
      const gate = (await client.post(collectionPath('card', doing), { title: 'Hang the gate', labels: [feature, made.label] })).body.id;
      await client.post(collectionPath('card', made.column), { title: 'Dig the moat', position: 0 });
      await client.patch(`/studio/sprints/${made.sprint}`, { cards: [gate, made.card] });
      const child = (await client.post(collectionPath('wiki_page', made.project), { title: 'Gate', slug: 'gate', parent_page_id: made.wiki_page })).body.id;
      await client.post(collectionPath('wiki_page', made.project), { title: 'Hinges', slug: 'hinges', parent_page_id: child });
      const exported = await client.get(`/studio/projects/${made.project}/export`);
      assert.equal(exported.status, 200);
      document = exported.body;
      projectCount = async () => (await client.get('/studio/projects')).body.data.length;
    });
    after(() => server.close());

    test('export gives one versioned document of the whole project', () => {
      assert.equal(document.format, 'marketkit.studio.project');
      assert.equal(document.version, 1);
      assert.equal(document.project.name, 'Castle Island');
      assert.deepStrictEqual(document.columns.map((c: Doc) => [c.position, c.name]), [[0, 'Doing'], [1, 'To do']]);
      assert.equal(document.cards.length, 3);
      assert.equal(document.wiki_pages.length, 3);
    });

    test('import makes a copy with new ids, references remapped, equal up to ids', async () => {
      const client = as(server, server.seller.token);
      const before = await projectCount();
      const imported = await client.post('/studio/import', { document, name: 'Castle Island (copy)' });
      assert.equal(imported.status, 201, JSON.stringify(imported.body));
      assert.equal(imported.body.project.name, 'Castle Island (copy)');
      assert.equal(imported.body.records, 1 + studioKinds.filter((k) => k !== 'project').reduce((n, k) => n + document[pluralKeyOf(k)].length, 0));
      assert.equal(await projectCount(), before + 1);
      const copy = (await client.get(`/studio/projects/${imported.body.project.id}/export`)).body;
      const oldIds = new Set([document.project.id, ...studioKinds.filter((k) => k !== 'project').flatMap((k) => document[pluralKeyOf(k)].map((i: Doc) => i.id))]);
      for (const kind of studioKinds.filter((k) => k !== 'project')) for (const item of copy[pluralKeyOf(kind)]) assert.ok(!oldIds.has(item.id), `${kind} kept an old id`);
      assert.deepStrictEqual(withoutIds(copy), withoutIds({ ...document, project: { ...document.project, name: 'Castle Island (copy)' } }));
      // The copy is the importer's own and lives on its own: changing it leaves the original alone.
      const card = copy.cards[0];
      assert.equal((await client.patch(`/studio/cards/${card.id}`, { title: 'Changed in the copy' })).status, 200);
      assert.ok(document.cards.every((c: Doc) => c.title !== 'Changed in the copy'));
      assert.equal((await as(server, server.other.token).get(`/studio/projects/${imported.body.project.id}`)).status, 404);
    });

    test('another account can import an exported document as its own', async () => {
      const imported = await as(server, server.other.token).post('/studio/import', { document });
      assert.equal(imported.status, 201);
      assert.equal((await as(server, server.seller.token).get(`/studio/projects/${imported.body.project.id}`)).status, 404);
    });

    test('hostile documents are refused naming the problem, and nothing is half-imported', async () => {
      const client = as(server, server.seller.token);
      const clone = (): Doc => structuredClone(document);
      const withCards = (n: number): Doc => {
        const doc = clone();
        const column = doc.columns[0].id;
        doc.cards = Array.from({ length: n }, (_, i) => ({ id: crypto.randomUUID(), column_id: column, position: i, title: `t${i}`, description: null, labels: [], assignee: null, due_date: null }));
        doc.sprints = doc.sprints.map((s: Doc) => ({ ...s, cards: [] }));
        return doc;
      };
      const hostile: [string, Doc, number, string][] = [
        ['an unknown version', { ...clone(), version: 2 }, 400, 'document.version'],
        ['another format', { ...clone(), format: 'trello' }, 400, 'document.format'],
        ['a card in a column the document lacks', (() => { const d = clone(); d.cards[1].column_id = crypto.randomUUID(); return d; })(), 400, 'document.cards[1].column_id'],
        ['a card naming a label the document lacks', (() => { const d = clone(); d.cards[0].labels = [crypto.randomUUID()]; return d; })(), 400, 'document.cards[0].labels[0]'],
        ['a sprint naming a card the document lacks', (() => { const d = clone(); d.sprints[0].cards.push(crypto.randomUUID()); return d; })(), 400, 'document.sprints[0].cards[2]'],
        ['a label id used as a column', (() => { const d = clone(); d.cards[0].column_id = d.labels[0].id; return d; })(), 400, 'document.cards[0].column_id'],
        ['two items with one id', (() => { const d = clone(); d.labels[1].id = d.labels[0].id; return d; })(), 400, 'document.labels[1].id'],
        ['wiki pages in a cycle', (() => { const d = clone(); const root = d.wiki_pages.find((p: Doc) => p.parent_page_id === null); const leaf = d.wiki_pages.find((p: Doc) => p.slug === 'hinges'); root.parent_page_id = leaf.id; return d; })(), 400, 'parent_page_id'],
        ['two wiki pages with one slug', (() => { const d = clone(); d.wiki_pages[1].slug = d.wiki_pages[0].slug; return d; })(), 400, 'slug'],
        ['a field the format does not have', (() => { const d = clone(); d.cards[0].owner_id = server.other.id; return d; })(), 400, 'document.cards[0].owner_id'],
        ['a prototype key', JSON.parse(JSON.stringify(clone()).replace('"boards":', '"__proto__":{"polluted":true},"boards":')), 400, 'document.__proto__'],
        ['a field of the wrong shape', (() => { const d = clone(); d.labels[0].colour = 'javascript:alert(1)'; return d; })(), 400, 'document.labels[0].colour'],
        ['more cards in one column than a column holds', withCards(1001), 400, 'document.cards[1000]'],
        ['a document that is not an object', 'not a document' as unknown as Doc, 400, 'document'],
      ];
      const before = await projectCount();
      for (const [what, doc, status, field] of hostile) {
        const response = await client.post('/studio/import', { document: doc });
        assert.equal(response.status, status, `${what}: ${JSON.stringify(response.body)}`);
        assert.equal(response.body.code, 'INVALID_INPUT', what);
        assert.ok(response.body.details[0].path.startsWith(field) || response.body.details[0].path.endsWith(field), `${what}: ${response.body.details[0].path}`);
      }
      const oversized = await client.post('/studio/import', { document: withCards(900), padding: 'x'.repeat(1024 * 1024) });
      assert.deepStrictEqual([oversized.status, oversized.body.code], [413, 'PAYLOAD_TOO_LARGE']);
      assert.equal(await projectCount(), before, 'no refused import left a project behind');
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
  });
}
