import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { callTool } from '../fixtures/mcp.js';
import { as, startServer, validAsset, type TestServer } from '../fixtures/server.js';

// listAssets' q (docs/rest.md, "Assets"): GET /api/v1/assets?q= and list_my_assets with q.

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const titles = (body: { data: { title: string }[] }) => body.data.map((asset) => asset.title);

test("GET /assets?q= lists the seller's listings whose title or slug contains q, A-Z without case, with a status, paged", async () => {
  const seller = await server.account();
  const api = as(server, seller.token);
  const made: [string, string][] = [
    ['Dark FOREST tiles', 'dark-tiles'],
    ['Castle walls', 'forest-castle'],
    ['100% free rocks', 'free-rocks'],
    ['École props', 'ecole-props'],
    ['forest floor', 'floor-pack'],
  ];
  for (const [title, slug] of made) {
    server.clock.advance(1000);
    assert.equal((await api.post('/assets', validAsset({ title, slug: `${slug}-${crypto.randomUUID().slice(0, 8)}` }))).status, 201);
  }
  // Another seller's match is not listed.
  await as(server, server.seller.token).post('/assets', validAsset({ title: 'Forest elsewhere' }));

  const found = await api.get('/assets?q=FOREST');
  assert.equal(found.status, 200);
  assert.deepEqual(titles(found.body), ['forest floor', 'Castle walls', 'Dark FOREST tiles']);
  assert.equal(found.body.pagination.total, 3);
  assert.deepEqual(titles((await api.get(`/assets?q=${encodeURIComponent('  0% ')}`)).body), ['100% free rocks'], 'trimmed; % is itself');
  assert.deepEqual(titles((await api.get(`/assets?q=${encodeURIComponent('école')}`)).body), [], 'é is not É');
  assert.deepEqual(titles((await api.get('/assets?q=_')).body), []);
  assert.deepEqual((await api.get('/assets?q=forest&status=pending')).body.pagination.total, 0);
  assert.deepEqual(titles((await api.get('/assets?q=forest&status=draft')).body), ['forest floor', 'Castle walls', 'Dark FOREST tiles']);

  // Cursor pages through the matches, each once; offset pages too.
  const first = await api.get('/assets?q=forest&limit=2');
  assert.deepEqual([titles(first.body), first.body.pagination.has_more], [['forest floor', 'Castle walls'], true]);
  const second = await api.get(`/assets?q=Forest&limit=2&cursor=${first.body.pagination.next_cursor}`);
  assert.deepEqual([titles(second.body), second.body.pagination.total, second.body.pagination.next_cursor], [['Dark FOREST tiles'], 3, null], 'the same search in another case');
  assert.deepEqual(titles((await api.get('/assets?q=forest&limit=2&offset=2')).body), ['Dark FOREST tiles']);

  // A cursor is good for the q it was made with only.
  for (const path of [`/assets?q=tiles&cursor=${first.body.pagination.next_cursor}`, `/assets?cursor=${first.body.pagination.next_cursor}`]) {
    const refused = await api.get(path);
    assert.deepEqual([refused.status, refused.body.code, refused.body.details?.[0]?.path], [400, 'INVALID_INPUT', 'cursor'], path);
  }
  const unfiltered = (await api.get('/assets?limit=1')).body.pagination.next_cursor;
  const mixed = await api.get(`/assets?q=forest&cursor=${unfiltered}`);
  assert.deepEqual([mixed.status, mixed.body.details?.[0]?.path], [400, 'cursor']);
});

test('an empty, blank, too long or multi-line q is INVALID_INPUT naming q', async () => {
  const api = as(server, server.seller.token);
  for (const q of ['', '   ', 'x'.repeat(101), 'a\nb', '\u0000']) {
    const refused = await api.get(`/assets?q=${encodeURIComponent(q)}`);
    assert.deepEqual([refused.status, refused.body.code, refused.body.details?.[0]?.path], [400, 'INVALID_INPUT', 'q'], JSON.stringify(q));
    assert.equal(typeof refused.body.error, 'string');
  }
  assert.equal((await api.get(`/assets?q=${'x'.repeat(100)}`)).status, 200);
});

test('list_my_assets takes q, and refuses a blank one naming q', async () => {
  const seller = await server.account();
  const api = as(server, seller.token);
  for (const title of ['Snow hut', 'Sand hut', 'Snow fort']) {
    server.clock.advance(1000);
    await api.post('/assets', validAsset({ title }));
  }
  const tool = await callTool(server, seller.token, 'list_my_assets', { q: 'SNOW', limit: 1 });
  const answer = tool.body.result.structuredContent;
  assert.deepEqual([titles(answer), answer.pagination.total, answer.pagination.has_more], [['Snow fort'], 2, true]);
  const next = await callTool(server, seller.token, 'list_my_assets', { q: 'snow', cursor: answer.pagination.next_cursor });
  assert.deepEqual(titles(next.body.result.structuredContent), ['Snow hut']);
  assert.deepEqual(next.body.result.structuredContent, (await api.get(`/assets?q=snow&cursor=${answer.pagination.next_cursor}`)).body, 'the same answer as REST');
  const blank = (await callTool(server, seller.token, 'list_my_assets', { q: ' ' })).body.result;
  assert.deepEqual([blank.isError, blank.structuredContent.code, blank.structuredContent.details?.[0]?.path], [true, 'INVALID_INPUT', 'q']);
});
