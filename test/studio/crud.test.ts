import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parentField, studioResources, type StudioKind } from '../../core/studio/index.js';
import { as, type TestServer } from '../fixtures/server.js';
import { collectionPath, createOneOfEach, creationOrder, recordPath, studioBackends, studioSamples } from '../fixtures/studio.js';

for (const backend of studioBackends) {
  describe(`Creator Studio REST on ${backend.name}`, () => {
    let server: TestServer;
    before(async () => {
      server = await backend.start();
    });
    after(() => server.close());

    test('every resource: create (201), get, list, update and delete, then 404', async () => {
      const client = as(server, server.seller.token);
      const made: Partial<Record<StudioKind, string>> = {};
      for (const kind of creationOrder) {
        const resource = studioResources[kind];
        const parent = parentField(resource);
        const parentId = parent ? made[resource.parent as StudioKind] : undefined;
        const body = studioSamples[kind].create(made);
        const created = await client.post(collectionPath(kind, parentId), body);
        assert.equal(created.status, 201, `create ${kind}: ${JSON.stringify(created.body)}`);
        for (const [field, value] of Object.entries(body)) assert.deepStrictEqual(created.body[field], value, `${kind}.${field}`);
        for (const [field, spec] of Object.entries(resource.fields)) if (!(field in body)) assert.deepStrictEqual(created.body[field], spec.default ?? null, `${kind}.${field} default`);
        if (parent && resource.parent !== 'project') assert.equal(created.body[parent], parentId);
        if (kind !== 'project') assert.equal(created.body.project_id, made.project);
        made[kind] = created.body.id;

        const read = await client.get(recordPath(kind, created.body.id));
        assert.deepStrictEqual([read.status, read.body], [200, created.body]);
        const listed = await client.get(collectionPath(kind, parentId));
        assert.equal(listed.status, 200);
        assert.deepStrictEqual(listed.body.data.map((r: { id: string }) => r.id), [created.body.id]);

        server.clock.advance(1000);
        const updated = await client.patch(recordPath(kind, created.body.id), studioSamples[kind].update);
        assert.equal(updated.status, 200, `update ${kind}: ${JSON.stringify(updated.body)}`);
        assert.deepStrictEqual(updated.body, { ...created.body, ...studioSamples[kind].update, updated_at: new Date(server.clock.now()).toISOString() });
      }
      for (const kind of [...creationOrder].reverse()) {
        const deleted = await client.delete(recordPath(kind, made[kind]!));
        assert.deepStrictEqual([deleted.status, deleted.body], [200, { success: true, id: made[kind] }], kind);
        assert.equal((await client.get(recordPath(kind, made[kind]!))).status, 404, `${kind} after delete`);
      }
    });

    test('deleting a project removes everything in it', async () => {
      const client = as(server, server.seller.token);
      const made = await createOneOfEach(server, server.seller.token);
      assert.equal((await client.delete(recordPath('project', made.project))).status, 200);
      for (const kind of creationOrder) assert.equal((await client.get(recordPath(kind, made[kind]))).status, 404, kind);
    });

    test('a deleted label drops off its cards; a deleted parent page leaves a top-level page', async () => {
      const client = as(server, server.seller.token);
      const made = await createOneOfEach(server, server.seller.token);
      await client.delete(recordPath('label', made.label));
      assert.deepStrictEqual((await client.get(recordPath('card', made.card))).body.labels, []);
      const child = await client.post(collectionPath('wiki_page', made.project), { title: 'Gate', slug: 'gate', parent_page_id: made.wiki_page });
      assert.equal(child.body.parent_page_id, made.wiki_page);
      await client.delete(recordPath('wiki_page', made.wiki_page));
      assert.equal((await client.get(recordPath('wiki_page', child.body.id))).body.parent_page_id, null);
    });

    test("another account's project and everything in it is 404, for reads, writes and children alike", async () => {
      const mine = await createOneOfEach(server, server.seller.token);
      const other = as(server, server.other.token);
      for (const kind of creationOrder) {
        assert.equal((await other.get(recordPath(kind, mine[kind]))).status, 404, `get ${kind}`);
        assert.equal((await other.patch(recordPath(kind, mine[kind]), studioSamples[kind].update)).status, 404, `patch ${kind}`);
        assert.equal((await other.delete(recordPath(kind, mine[kind]))).status, 404, `delete ${kind}`);
        const resource = studioResources[kind];
        if (resource.parent !== 'account') {
          const parentId = mine[resource.parent as StudioKind];
          assert.equal((await other.get(collectionPath(kind, parentId))).status, 404, `list ${kind}`);
          assert.equal((await other.post(collectionPath(kind, parentId), studioSamples[kind].create(mine))).status, 404, `create ${kind}`);
        }
      }
      assert.equal((await other.post(`${recordPath('card', mine.card)}/move`, { position: 0 })).status, 404);
      assert.equal((await other.get(`/studio/projects/${mine.project}/export`)).status, 404);
      assert.deepStrictEqual((await other.get('/studio/projects')).body.data.filter((p: { id: string }) => p.id === mine.project), []);
      // Nor can the other account move its own card into my column.
      const theirs = await createOneOfEach(server, server.other.token);
      assert.equal((await other.post(`${recordPath('card', theirs.card)}/move`, { column_id: mine.column, position: 0 })).status, 404);
      // Still all there.
      assert.equal((await as(server, server.seller.token).get(recordPath('card', mine.card))).status, 200);
    });

    test('validation errors are 400 INVALID_INPUT naming the field', async () => {
      const client = as(server, server.seller.token);
      const made = await createOneOfEach(server, server.seller.token);
      const foreign = await createOneOfEach(server, server.other.token);
      const cases: [string, string, Record<string, unknown>, string][] = [
        [collectionPath('project'), 'POST', { name: '' }, 'name'],
        [collectionPath('project'), 'POST', { name: 'x', owner_id: made.project }, 'owner_id'],
        [collectionPath('island_code', made.project), 'POST', { code: '1234-5678', name: 'Isle' }, 'code'],
        [collectionPath('label', made.project), 'POST', { name: 'red', colour: 'red' }, 'colour'],
        [collectionPath('milestone', made.project), 'POST', { title: 'Ship', status: 'late' }, 'status'],
        [collectionPath('card', made.column), 'POST', { title: 'x', due_date: '2026-02-30' }, 'due_date'],
        [collectionPath('card', made.column), 'POST', { title: 'x', labels: [foreign.label] }, 'labels[0]'],
        [collectionPath('card', made.column), 'POST', { title: 'x', position: -1 }, 'position'],
        [collectionPath('sprint', made.project), 'POST', { name: 's', start_date: '2026-02-10', end_date: '2026-02-01' }, 'end_date'],
        [collectionPath('sprint', made.project), 'POST', { name: 's', cards: [made.label] }, 'cards[0]'],
        [collectionPath('wiki_page', made.project), 'POST', { title: 'T', slug: 'Not A Slug' }, 'slug'],
        [collectionPath('snippet', made.project), 'POST', { title: 'T', code: 'x' }, 'language'],
        [recordPath('wiki_page', made.wiki_page), 'PATCH', { parent_page_id: made.wiki_page }, 'parent_page_id'],
        [recordPath('card', made.card), 'PATCH', {}, 'body'],
        [recordPath('card', made.card), 'PATCH', { position: 3 }, 'position'],
        [`${recordPath('card', made.card)}/move`, 'POST', {}, 'position'],
      ];
      for (const [path, method, body, field] of cases) {
        const response = method === 'POST' ? await client.post(path, body) : await client.patch(path, body);
        assert.equal(response.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(response.body)}`);
        assert.equal(response.body.code, 'INVALID_INPUT');
        assert.equal(response.body.details?.[0]?.path, field, `${JSON.stringify(body)} -> ${response.body.error}`);
        assert.ok(response.body.error.startsWith(field), response.body.error);
      }
    });

    test('a wiki page cannot go under its own descendant; slugs and label names are unique per project (409)', async () => {
      const client = as(server, server.seller.token);
      const made = await createOneOfEach(server, server.seller.token);
      const child = (await client.post(collectionPath('wiki_page', made.project), { title: 'Gate', slug: 'gate', parent_page_id: made.wiki_page })).body;
      const cycle = await client.patch(recordPath('wiki_page', made.wiki_page), { parent_page_id: child.id });
      assert.deepStrictEqual([cycle.status, cycle.body.details[0].path], [400, 'parent_page_id']);
      const again = await client.post(collectionPath('wiki_page', made.project), { title: 'Lore 2', slug: 'lore' });
      assert.deepStrictEqual([again.status, again.body.code], [409, 'CONFLICT']);
      assert.equal((await client.post(collectionPath('label', made.project), { name: 'bug' })).status, 409);
      const renamed = await client.patch(`/studio/wiki-pages/${child.id}`, { slug: 'lore' });
      assert.deepStrictEqual([renamed.status, renamed.body.details?.[0]?.path], [409, 'slug']);
      // At the same instant, too: the storage holds the key, so exactly one create wins.
      const racing = await Promise.all(Array.from({ length: 8 }, (_, i) => client.post(collectionPath('wiki_page', made.project), { title: `Race ${i}`, slug: 'race' })));
      assert.deepStrictEqual(racing.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409, 409, 409]);
      // A freed slug can be taken again.
      await client.delete(`/studio/wiki-pages/${racing.find((r) => r.status === 201)!.body.id}`);
      assert.equal((await client.post(collectionPath('wiki_page', made.project), { title: 'Race again', slug: 'race' })).status, 201);
      const elsewhere = await createOneOfEach(server, server.seller.token);
      assert.equal((await client.post(collectionPath('label', elsewhere.project), { name: 'bug-2' })).status, 201, 'another project has its own names');
    });

    test('scopes: studio:read reads but may not write (403); a token without studio scopes may not read', async () => {
      const made = await createOneOfEach(server, server.seller.token);
      const reader = await server.account({}, ['studio:read']);
      const r = as(server, reader.token);
      assert.equal((await r.get('/studio/projects')).status, 200);
      const refused = await r.post('/studio/projects', { name: 'Nope' });
      assert.deepStrictEqual([refused.status, refused.body.code], [403, 'FORBIDDEN']);
      assert.match(refused.body.error, /studio:write/);
      assert.equal((await r.post('/studio/import', { document: {} })).status, 403);
      const plain = await server.account({}, ['profile:read', 'assets:read', 'assets:write']);
      const listing = await as(server, plain.token).get('/studio/projects');
      assert.deepStrictEqual([listing.status, listing.body.code], [403, 'FORBIDDEN']);
      // Scope comes before input and ownership: a bad body from a reader is still 403.
      assert.equal((await r.patch(recordPath('card', made.card), { nope: 1 })).status, 403);
      const writer = await server.account({}, ['studio:read', 'studio:write']);
      assert.equal((await as(server, writer.token).post('/studio/projects', { name: 'Mine' })).status, 201);
    });

    test('a parent holds a limited number of children: a board its 50 columns, then 409, also when creates race for the last place', async () => {
      const client = as(server, server.seller.token);
      const made = await createOneOfEach(server, server.seller.token);
      for (let i = 2; i < studioResources.column.maxPerParent; i++) assert.equal((await client.post(collectionPath('column', made.board), { name: `c${i}` })).status, 201);
      const racing = await Promise.all([1, 2, 3, 4].map((i) => client.post(collectionPath('column', made.board), { name: `last ${i}` })));
      assert.deepStrictEqual(racing.map((r) => r.status).sort(), [201, 409, 409, 409]);
      assert.equal((await client.get(collectionPath('column', made.board))).body.data.length, studioResources.column.maxPerParent);
      const over = await client.post(collectionPath('column', made.board), { name: 'one too many' });
      assert.deepStrictEqual([over.status, over.body.code], [409, 'CONFLICT']);
      assert.match(over.body.error, /at most 50 columns/);
    });

    test('an id that is not a UUID, badly encoded, or of another kind names nothing: 404', async () => {
      const client = as(server, server.seller.token);
      const made = await createOneOfEach(server, server.seller.token);
      assert.equal((await client.get('/studio/cards/not-a-uuid')).status, 404);
      assert.equal((await client.get('/studio/cards/%E0%A4%A')).status, 404);
      assert.equal((await client.get(recordPath('card', made.label))).status, 404, 'a label id is no card');
      assert.equal((await client.post(collectionPath('card', made.board), { title: 'x' })).status, 404, 'a board id is no column');
      const elsewhere = await createOneOfEach(server, server.seller.token);
      const across = await client.post(`${recordPath('card', made.card)}/move`, { column_id: elsewhere.column, position: 0 });
      assert.equal(across.status, 404, 'a column of another project of the same account');
    });

    test('without a token: 401', async () => {
      assert.equal((await as(server, null).get('/studio/projects')).status, 401);
    });
  });
}
