import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { modernHeaders, modernParams, postMcp, postRaw, rpc } from '../fixtures/mcp.js';
import { startServer, type TestServer } from '../fixtures/server.js';

// What the 2026-07-28 revision requires of each request before its method runs: its `_meta`, its
// mirrored headers, and the methods it removed. Checked on their own (protocol.test.ts has versions).

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

const versionHeader = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' };
const meta = modernParams()._meta;

test('a 2026-07-28 request without _meta, its protocolVersion or its clientCapabilities is -32602 with HTTP 400', async () => {
  const { 'io.modelcontextprotocol/protocolVersion': _version, ...withoutVersion } = meta;
  const { 'io.modelcontextprotocol/clientCapabilities': _capabilities, ...withoutCapabilities } = meta;
  const cases = {
    'no _meta': {},
    'no protocolVersion': { _meta: withoutVersion },
    'no clientCapabilities': { _meta: withoutCapabilities },
    'clientCapabilities not an object': { _meta: { ...meta, 'io.modelcontextprotocol/clientCapabilities': 'all' } },
  };
  for (const [name, params] of Object.entries(cases)) {
    const answer = await rpc(server, 'server/discover', params, { headers: versionHeader });
    assert.equal(answer.status, 400, name);
    assert.equal(answer.body.error.code, -32602, name);
    assert.equal(typeof answer.body.id, 'number', `${name}: the error keeps the request's id`);
  }
  const { 'io.modelcontextprotocol/clientInfo': _info, ...withoutClientInfo } = meta;
  const served = await rpc(server, 'server/discover', { _meta: withoutClientInfo }, { headers: versionHeader });
  assert.equal(served.status, 200, 'clientInfo is a SHOULD: a request without it is served');
});

test('a 2026-07-28 request must carry MCP-Protocol-Version, Mcp-Method and (for tools/call) Mcp-Name: -32020 with HTTP 400 without them', async () => {
  const call = modernParams({ name: 'health_check' });
  const full = modernHeaders('tools/call', call);
  for (const header of Object.keys(full)) {
    const { [header]: _left, ...headers } = full;
    const answer = await postMcp(server, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: call }, { headers, token: server.seller.token });
    assert.equal(answer.status, 400, `without ${header}`);
    assert.equal(answer.body.error.code, -32020, `without ${header}`);
  }
  const legacy = await postMcp(server, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'health_check' } }, { token: server.seller.token });
  assert.equal(legacy.body.result.structuredContent.ok, true, 'an earlier revision has no mirrored headers to require');
});

test('mirrored values: a method is case-sensitive, whitespace around a value is allowed, a Base64 name is decoded, invalid Base64 is refused', async () => {
  const upper = await rpc(server, 'tools/list', modernParams(), { headers: { 'mcp-method': 'TOOLS/LIST' } });
  assert.equal(upper.body.error.code, -32020);
  const call = (name: string) => rpc(server, 'tools/call', modernParams({ name: 'health_check' }), { token: server.seller.token, headers: { 'mcp-name': name } });
  assert.equal((await call(`=?base64?${btoa('health_check')}?=`)).body.result.structuredContent.ok, true);
  // fetch trims header values itself: node:http sends them as given.
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: modernParams({ name: 'health_check' }) });
  const headers = { ...modernHeaders('tools/call', modernParams({ name: 'health_check' })), 'mcp-name': '  health_check\t', host: new URL(server.url).host };
  const spaced = await postRaw(server, '/api/mcp', { ...headers, 'content-type': 'application/json', authorization: `Bearer ${server.seller.token}` }, body);
  assert.equal(JSON.parse(spaced.body).result.structuredContent.ok, true, 'whitespace around a header value is not part of it');
  for (const bad of ['=?base64?aGVhbHRoX2NoZWM?=', '=?base64?aGVhbHRo!!!?=', 'delete_asset']) {
    const refused = await call(bad);
    assert.equal(refused.status, 400, bad);
    assert.equal(refused.body.error.code, -32020, bad);
  }
});

test('initialize and ping are gone in 2026-07-28: 404 with -32601; earlier revisions keep them', async () => {
  for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/list', 'prompts/list']) {
    const answer = await rpc(server, method, modernParams({ protocolVersion: '2026-07-28' }));
    assert.equal(answer.status, 404, method);
    assert.equal(answer.body.error.code, -32601, method);
  }
  assert.deepEqual((await rpc(server, 'ping')).body.result, {});
  assert.equal((await rpc(server, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })).status, 200);
});

test('header and _meta checks are answered before authentication and rate limits', async () => {
  const limited = await startServer({ rateLimits: { mcpUnauthenticated: { limit: 1, windowSeconds: 60 } } });
  try {
    const wrongName = () => rpc(limited, 'tools/call', modernParams({ name: 'health_check' }), { headers: { 'mcp-name': 'wrong_tool_name' } });
    const first = await wrongName();
    assert.equal(first.status, 400, 'no token, yet refused for its header, not 401');
    assert.equal(first.body.error.code, -32020);
    assert.equal((await rpc(limited, 'tools/list', modernParams())).status, 200, 'the refusals cost nothing: the one call allowed is still there');
    assert.equal((await rpc(limited, 'tools/list', modernParams())).status, 429, 'now the budget is spent');
    assert.equal((await wrongName()).status, 400, 'a header failure is still answered for what it is');
    assert.equal((await rpc(limited, 'server/discover', {}, { headers: versionHeader })).body.error.code, -32602);
  } finally {
    await limited.close();
  }
});
