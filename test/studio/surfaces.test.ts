import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateOpenApi } from '../../core/http/openapi.js';
import { studioRoutes, studioTools } from '../../core/studio/index.js';
import { callTool, modernParams, rpc } from '../fixtures/mcp.js';
import { as, startServer, type TestServer } from '../fixtures/server.js';
import { createOneOfEach } from '../fixtures/studio.js';
import { hostedTools } from '../../core/mcp/tools.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

test('the hosted MCP endpoint keeps to its listing tools: no studio tool there', async () => {
  const listed = await rpc(server, 'tools/list', modernParams(), { headers: { 'mcp-protocol-version': '2026-07-28' } });
  const names: string[] = listed.body.result.tools.map((tool: { name: string }) => tool.name);
  assert.deepEqual(names, hostedTools.map((tool) => tool.name));
  for (const tool of studioTools) assert.ok(!names.includes(tool.name), tool.name);
  const refused = await callTool(server, server.seller.token, 'create_project', { name: 'x' });
  assert.ok(refused.body.error || refused.body.result?.isError, 'a studio tool is unknown to the hosted endpoint');
});

test('the public OpenAPI document has every studio route, tagged Studio, with its studio scope', () => {
  const document = generateOpenApi('https://market.example') as { paths: Record<string, Record<string, { tags: string[]; 'x-scopes': string[]; operationId: string }>> };
  for (const route of studioRoutes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const operation = document.paths[path]?.[route.method.toLowerCase()];
    assert.ok(operation, `${route.method} ${path} is documented`);
    assert.deepStrictEqual(operation.tags, ['Studio']);
    assert.deepStrictEqual(operation['x-scopes'], [route.method === 'GET' ? 'studio:read' : 'studio:write']);
  }
});

test('the local-process tool table: one uniquely named tool per studio route, with the request that carries it', () => {
  const names = studioTools.map((tool) => tool.name);
  assert.equal(new Set(names).size, studioRoutes.length);
  for (const expected of ['create_project', 'list_boards', 'create_card', 'move_card', 'update_wiki_page', 'list_island_codes', 'delete_label', 'export_project', 'import_project']) {
    assert.ok(names.includes(expected), expected);
  }
  const move = studioTools.find((tool) => tool.name === 'move_card')!;
  assert.deepStrictEqual(move.rest, { method: 'POST', path: '/api/v1/studio/cards/:id/move', params: { id: 'card_id' } });
  assert.deepStrictEqual(Object.keys((move.input as unknown as { properties: object }).properties).sort(), ['card_id', 'column_id', 'idempotency_key', 'position'], 'the route’s input, and the retry key of a write');
  assert.equal(studioTools.find((tool) => tool.name === 'get_card')!.annotations.readOnlyHint, true);
  assert.equal(studioTools.find((tool) => tool.name === 'delete_card')!.annotations.destructiveHint, true);
});

test('an exchanged session keeps the studio scopes of its developer token, and no more', async () => {
  const writer = await server.account({}, ['studio:read', 'studio:write']);
  const session = await as(server, writer.token).post('/auth/session');
  assert.equal(session.status, 200);
  assert.equal(session.body.scope, 'studio:read studio:write');
  const made = await createOneOfEach(server, session.body.access_token);
  assert.equal((await as(server, session.body.access_token).get(`/studio/cards/${made.card}`)).status, 200);
  assert.equal((await as(server, session.body.access_token).get('/me')).status, 403);
});

test('a marketplace without the studio option answers 404 on studio routes, saying so', async () => {
  const bare = await startServer({ studio: undefined });
  try {
    const response = await as(bare, bare.seller.token).get('/studio/projects');
    assert.deepStrictEqual([response.status, response.body.code], [404, 'NOT_FOUND']);
    assert.match(response.body.error, /Creator Studio is not enabled/);
  } finally {
    await bare.close();
  }
});
