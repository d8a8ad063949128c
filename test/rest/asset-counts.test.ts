import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClient } from '../../client/index.js';
import { callTool } from '../fixtures/mcp.js';
import { as, forceStatus, startServer, validAsset, type TestServer } from '../fixtures/server.js';

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(() => server.close());

const none = { draft: 0, pending: 0, scheduled: 0, published: 0, rejected: 0, changes_requested: 0, archived: 0 };

test('GET /assets/counts, count_my_assets and client.operations.countAssets count the caller\'s listings in each status', async () => {
  const seller = await server.account();
  const client = as(server, seller.token);
  assert.deepEqual((await client.get('/assets/counts')).body, { total: 0, by_status: none }, 'every status named, 0 where there are none');

  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await client.post('/assets', validAsset())).body.id);
  await forceStatus(server, ids[0]!, 'published');
  await forceStatus(server, ids[1]!, 'changes_requested');
  await as(server, server.other.token).post('/assets', validAsset()); // another seller's: not counted
  const expected = { total: 4, by_status: { ...none, draft: 2, published: 1, changes_requested: 1 } };

  const rest = await client.get('/assets/counts');
  assert.equal(rest.status, 200);
  assert.deepEqual(rest.body, expected);
  const tool = await callTool(server, seller.token, 'count_my_assets');
  assert.deepEqual(tool.body.result.structuredContent, expected);
  assert.deepEqual(await createClient({ baseUrl: server.url, token: seller.token }).operations.countAssets(), expected);

  // A change is seen at once: the kept result goes with the write.
  await client.delete(`/assets/${ids[2]}`);
  assert.deepEqual((await client.get('/assets/counts')).body, { total: 3, by_status: { ...expected.by_status, draft: 1 } });
});

test('counting needs assets:read and takes no arguments', async () => {
  const profileOnly = await server.account({}, ['profile:read']);
  const refused = await as(server, profileOnly.token).get('/assets/counts');
  assert.deepEqual([refused.status, refused.body.code], [403, 'FORBIDDEN']);
  const extra = await callTool(server, server.seller.token, 'count_my_assets', { status: 'draft' });
  assert.equal(extra.body.result.structuredContent.code, 'INVALID_INPUT');
});
