import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { modernParams, postMcp, rpc } from '../fixtures/mcp.js';
import { startServer, type TestServer } from '../fixtures/server.js';
import { hostedTools } from '../../core/mcp/tools.js';

const supported = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

const initialize = (protocolVersion: unknown) =>
  rpc(server, 'initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'legacy-client', version: '1' } });

test('initialize keeps the client\'s version when it is one of the earlier revisions', async () => {
  for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
    const answer = await initialize(version);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.result.protocolVersion, version);
  }
});

test('initialize answers the newest earlier revision for a version it does not speak', async () => {
  for (const version of ['2024-10-07', '2026-07-28', '3000-01-01']) {
    assert.equal((await initialize(version)).body.result.protocolVersion, '2025-11-25', version);
  }
});

test('initialize gives capabilities, serverInfo and instructions, and no session', async () => {
  const answer = await initialize('2025-11-25');
  const { result } = answer.body;
  assert.deepEqual(result.capabilities, { tools: { listChanged: false } });
  assert.equal(result.serverInfo.name, 'marketkit');
  assert.equal(typeof result.serverInfo.version, 'string');
  assert.match(result.instructions, /create_asset/);
  assert.equal(answer.headers.get('mcp-session-id'), null);
  assert.equal(result.resultType, undefined, 'earlier revisions get their own result shape');
});

test('server/discover lists every version served, with capabilities, serverInfo and instructions', async () => {
  const answer = await rpc(server, 'server/discover', modernParams());
  assert.equal(answer.status, 200);
  const { result } = answer.body;
  assert.deepEqual(result.supportedVersions, supported);
  assert.deepEqual(result.capabilities, { tools: { listChanged: false } });
  assert.equal(result.serverInfo.name, 'marketkit');
  assert.match(result.instructions, /submit_asset/);
  assert.equal(result.resultType, 'complete');
  assert.equal(result._meta['io.modelcontextprotocol/serverInfo'].name, 'marketkit');
  assert.equal(typeof result.ttlMs, 'number');
  assert.equal(result.cacheScope, 'public');
});

test('a 2026-07-28 request works with no handshake, and its result is marked complete', async () => {
  const answer = await rpc(server, 'tools/list', modernParams(), { headers: { 'mcp-protocol-version': '2026-07-28' } });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.result.tools.length, hostedTools.length);
  assert.equal(answer.body.result.resultType, 'complete');
  const call = await rpc(server, 'tools/call', modernParams({ name: 'health_check' }), { token: server.seller.token });
  assert.equal(call.body.result.resultType, 'complete');
  assert.equal(call.body.result.structuredContent.ok, true);
});

test('a version in _meta that is not served is -32022 with the supported versions (HTTP 400)', async () => {
  const answer = await rpc(server, 'tools/list', modernParams({}, '2099-01-01'));
  assert.equal(answer.status, 400);
  assert.equal(answer.body.error.code, -32022);
  assert.deepEqual(answer.body.error.data.supported, supported);
  assert.equal(answer.body.error.data.requested, '2099-01-01');
});

test('an MCP-Protocol-Version header that disagrees with _meta is -32020 (HTTP 400); one naming a version not served is -32022', async () => {
  for (const [header, meta] of [['2025-11-25', '2099-01-01'], ['2026-07-28', '2099-01-01'], ['2025-11-25', '2026-07-28']]) {
    const disagreeing = await rpc(server, 'tools/list', modernParams({}, meta), { headers: { 'mcp-protocol-version': header! } });
    assert.equal(disagreeing.status, 400, `${header} vs ${meta}`);
    assert.equal(disagreeing.body.error.code, -32020, `${header} vs ${meta}`);
  }
  const headerRefused = await rpc(server, 'tools/list', modernParams(), { headers: { 'mcp-protocol-version': '2099-01-01' } });
  assert.equal(headerRefused.status, 400);
  assert.equal(headerRefused.body.error.code, -32022);
});

test('an MCP-Protocol-Version header naming an unsupported version is 400, for notifications and batches too', async () => {
  const headers = { 'mcp-protocol-version': 'not-a-version' };
  const single = await rpc(server, 'ping', undefined, { headers });
  assert.equal(single.status, 400);
  assert.equal(single.body.error.code, -32022);
  assert.equal(typeof single.body.id, 'number', 'a lone request keeps its id');
  const notification = await postMcp(server, { jsonrpc: '2.0', method: 'notifications/initialized' }, { headers });
  assert.equal(notification.status, 400);
  const batch = await postMcp(server, [{ jsonrpc: '2.0', id: 1, method: 'ping' }], { headers });
  assert.equal(batch.status, 400);
});

test('ping, initialize, server/discover and tools/list need no token', async () => {
  for (const method of ['ping', 'server/discover', 'tools/list']) {
    assert.equal((await rpc(server, method)).status, 200, method);
  }
  assert.equal((await initialize('2025-06-18')).status, 200);
});

test('a mirrored Mcp-Method or Mcp-Name header that disagrees with the body is -32020 (HTTP 400)', async () => {
  const method = await rpc(server, 'tools/list', modernParams(), { headers: { 'mcp-method': 'ping' } });
  assert.equal(method.status, 400);
  assert.equal(method.body.error.code, -32020);
  const name = await rpc(server, 'tools/call', modernParams({ name: 'health_check' }), {
    token: server.seller.token,
    headers: { 'mcp-method': 'tools/call', 'mcp-name': 'delete_asset' },
  });
  assert.equal(name.body.error.code, -32020);
  const agreeing = await rpc(server, 'tools/call', modernParams({ name: 'health_check' }), {
    token: server.seller.token,
    headers: { 'mcp-method': 'tools/call', 'mcp-name': `=?base64?${btoa('health_check')}?=` },
  });
  assert.equal(agreeing.body.result.structuredContent.ok, true, 'a Base64-encoded name is decoded before comparing');
});
