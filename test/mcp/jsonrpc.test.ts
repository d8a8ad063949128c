import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { memoryStorage } from '../../adapters/memory/index.js';
import { callTool, modernParams, postMcp, rpc } from '../fixtures/mcp.js';
import { as, startServer, validAsset, type TestServer } from '../fixtures/server.js';

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

const ping = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'ping' });

test('a request gets 200 and a JSON-RPC response with its id', async () => {
  const answer = await postMcp(server, ping('abc'));
  assert.equal(answer.status, 200);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(answer.body, { jsonrpc: '2.0', id: 'abc', result: {} });
});

test('a notification gets 202 and no body', async () => {
  const response = await fetch(`${server.url}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  assert.equal(response.status, 202);
  assert.equal(await response.text(), '');
});

test('a tools/call sent as a notification runs nothing', async () => {
  const before = await as(server, server.seller.token).get('/assets');
  const answer = await postMcp(
    server,
    { jsonrpc: '2.0', method: 'tools/call', params: { name: 'create_asset', arguments: validAsset() } },
    { token: server.seller.token },
  );
  assert.equal(answer.status, 202);
  const afterwards = await as(server, server.seller.token).get('/assets');
  assert.equal(afterwards.body.pagination.total, before.body.pagination.total);
});

test('malformed JSON is HTTP 400 with -32700 and a null id', async () => {
  for (const body of ['{"jsonrpc": "2.0", "id": 1, "method": "ping"', '', '[1, 2', '\u00ff'.repeat(3)]) {
    const answer = await postMcp(server, body);
    assert.equal(answer.status, 400, `body ${JSON.stringify(body)}`);
    assert.equal(answer.body.error.code, -32700);
    assert.equal(answer.body.id, null);
  }
});

test('JSON that is not a JSON-RPC request is HTTP 400 with -32600', async () => {
  const cases: unknown[] = [
    42,
    '"ping"',
    null,
    { id: 1, method: 'ping' },
    { jsonrpc: '1.0', id: 1, method: 'ping' },
    { jsonrpc: '2.0', id: 1 },
    { jsonrpc: '2.0', id: 1, method: 7 },
    { jsonrpc: '2.0', id: null, method: 'ping' },
    { jsonrpc: '2.0', id: 1.5, method: 'ping' },
    { jsonrpc: '2.0', id: 1, method: 'ping', params: 'x' },
    [],
  ];
  for (const body of cases) {
    const answer = await postMcp(server, body);
    assert.equal(answer.status, 400, JSON.stringify(body));
    assert.equal(answer.body.error.code, -32600, JSON.stringify(body));
  }
  const withId = await postMcp(server, { jsonrpc: '1.0', id: 7, method: 'ping' });
  assert.equal(withId.body.id, 7, 'the id is echoed when it can be read');
});

test('an unknown method is -32601: HTTP 200 for earlier clients, 404 for a 2026-07-28 request', async () => {
  const legacy = await rpc(server, 'resources/list');
  assert.equal(legacy.status, 200);
  assert.equal(legacy.body.error.code, -32601);
  const modern = await rpc(server, 'resources/list', modernParams());
  assert.equal(modern.status, 404);
  assert.equal(modern.body.error.code, -32601);
  const prototypeName = await rpc(server, 'constructor');
  assert.equal(prototypeName.body.error.code, -32601, 'method names are not looked up on a prototype');
});

test('bad params and an unknown tool are -32602', async () => {
  const token = server.seller.token;
  const cases: [string, unknown][] = [
    ['params as an array', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: ['health_check'] }],
    ['no tool name', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: {} }],
    ['a tool name that is not a string', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 5 } }],
    ['an unknown tool', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'drop_database' } }],
    ['arguments that are not an object', { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'get_asset', arguments: 'x' } }],
    ['initialize without a protocolVersion', { jsonrpc: '2.0', id: 6, method: 'initialize', params: {} }],
    ['a tools/list cursor never issued', { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { cursor: 'page-2' } }],
  ];
  for (const [name, body] of cases) {
    const answer = await postMcp(server, body, { token });
    assert.equal(answer.status, 200, name);
    assert.equal(answer.body.error?.code, -32602, name);
  }
});

test('a batch is answered with an array in order, notifications left out', async () => {
  const answer = await postMcp(server, [
    ping(1),
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { jsonrpc: '2.0', id: 3, method: 'nope' },
    'not a message',
  ]);
  assert.equal(answer.status, 200);
  assert.equal(answer.body.length, 4);
  assert.deepEqual(
    answer.body.map((item: any) => [item.id, item.error?.code ?? 'ok']),
    [
      [1, 'ok'],
      [2, 'ok'],
      [3, -32601],
      [null, -32600],
    ],
  );
});

test('a batch of notifications only is 202 with no body', async () => {
  const answer = await postMcp(server, [
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
  ]);
  assert.equal(answer.status, 202);
  assert.equal(answer.body, null);
});

test('a batch holds at most 100 messages', async () => {
  const answer = await postMcp(server, Array.from({ length: 101 }, (_, i) => ping(i)));
  assert.equal(answer.status, 400);
  assert.equal(answer.body.error.code, -32600);
});

test('a batch never carries a tools/call past authentication: the call does not run and the batch is 401', async () => {
  const slug = validAsset().slug;
  const answer = await postMcp(
    server,
    [ping(1), { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_asset', arguments: { title: 'Sneaky', slug } } }],
    { token: 'smcp_not-a-real-token' },
  );
  assert.equal(answer.status, 401);
  assert.equal(answer.headers.get('www-authenticate'), 'Bearer');
  assert.deepEqual(answer.body[0], { jsonrpc: '2.0', id: 1, result: {} }, 'the other answers are still there');
  assert.equal(answer.body[1].id, 2);
  assert.equal(answer.body[1].error.data.code, 'UNAUTHORIZED');
  const created = await as(server, server.seller.token).post('/assets', { title: 'Probe', slug });
  assert.equal(created.status, 201, 'the slug is still free: the refused call created nothing');
});

test('each tools/call of a batch authenticates: a good token runs every call', async () => {
  const answer = await postMcp(
    server,
    [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'health_check' } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_my_profile' } },
    ],
    { token: server.seller.token },
  );
  assert.equal(answer.status, 200);
  assert.equal(answer.body[0].result.structuredContent.ok, true);
  assert.equal(answer.body[1].result.structuredContent.id, server.seller.id);
});

test('a response sent by a client is acknowledged with 202: this server sends no requests to answer', async () => {
  const answer = await postMcp(server, { jsonrpc: '2.0', id: 9, result: {} });
  assert.equal(answer.status, 202);
});

test('a store that fails during a call is -32603 for that call, reported to onError with the request it came in, its cause never sent', async () => {
  const storage = memoryStorage();
  const reported: { error: unknown; request: { method: string; path: string; requestId: string } }[] = [];
  const failing = await startServer({
    storage: { ...storage, getAsset: async () => { throw new Error('database file /secret/path is locked'); } },
    onError: (error, request) => reported.push({ error, request }),
  });
  try {
    const id = '6f1c2b9e-8a47-4d3c-9b1e-2f5a7c8d9e01';
    const alone = await callTool(failing, failing.seller.token, 'get_asset', { asset_id: id });
    assert.equal(alone.status, 500);
    assert.deepEqual(alone.body.error, { code: -32603, message: 'Internal error; retry.' });
    assert.equal(reported.length, 1);
    assert.match(String(reported[0]!.error), /locked/);
    // As every surface reports (one frame): the client's address too, as on REST.
    assert.deepEqual(reported[0]!.request, { method: 'POST', path: '/api/mcp', requestId: alone.headers.get('x-request-id'), clientAddress: '127.0.0.1' });
    // In a batch, the other messages are still answered.
    const batch = await postMcp(failing, [ping(1), { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_asset', arguments: { asset_id: id } } }], { token: failing.seller.token, headers: { 'x-request-id': 'batch-1' } });
    assert.equal(batch.status, 200);
    assert.deepEqual(batch.body[0], { jsonrpc: '2.0', id: 1, result: {} });
    assert.equal(batch.body[1].error.code, -32603);
    assert.equal(reported.length, 2);
    assert.equal(reported[1]!.request.requestId, 'batch-1');
    assert.ok(!JSON.stringify([alone.body, batch.body]).includes('secret'));
  } finally {
    await failing.close();
  }
});
