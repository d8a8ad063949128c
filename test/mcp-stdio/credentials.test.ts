import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { runCli } from '../fixtures/cli.js';
import { as, startServer } from '../fixtures/server.js';
import { callOk, connectStdio } from './stdio.js';
import { nodeCli } from '../fixtures/cli.js';

test('with MARKETKIT_API_TOKEN the process keeps working across a session expiry, and a revoked token makes its next call fail clearly', async () => {
  const server = await startServer();
  const session = await connectStdio({ MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token });
  try {
    const { client } = session;
    assert.equal((await callOk(client, 'health_check')).user_id, server.seller.id);
    // The server's clock passes the session's hour: its JWT is refused, and the process exchanges the token again.
    server.clock.advance(2 * 3600_000);
    assert.equal((await callOk(client, 'get_my_profile')).id, server.seller.id);
    assert.equal((session.stderr().match(/session renewed until/g) ?? []).length, 2, 'a second exchange');

    assert.equal((await as(server, server.seller.token).delete(`/tokens?id=${server.seller.tokenId}`)).status, 200);
    const refused = await client.callTool({ name: 'list_my_assets', arguments: {} });
    assert.equal(refused.isError, true);
    const body = refused.structuredContent as { error: string; code: string };
    assert.equal(body.code, 'UNAUTHORIZED');
    assert.match(body.error, /MARKETKIT_API_TOKEN/);
    assert.match(body.error, /revoked/);
    assert.match(session.stderr(), /list_my_assets: 401 UNAUTHORIZED/);
  } finally {
    await session.close();
    await server.close();
  }
});

test('with MARKETKIT_SESSION_JWT the JWT is used as given, and once it expires a call says so and what to set instead', async () => {
  const server = await startServer();
  const exchanged = await as(server, server.seller.token).post('/auth/session', {});
  assert.equal(exchanged.status, 200);
  const session = await connectStdio({ MARKETKIT_URL: server.url, MARKETKIT_SESSION_JWT: exchanged.body.access_token });
  try {
    const { client } = session;
    assert.equal((await callOk(client, 'get_my_profile')).id, server.seller.id);
    assert.match(session.stderr(), /MARKETKIT_SESSION_JWT, used as given and not renewed, valid until/);
    server.clock.advance(2 * 3600_000);
    const refused = await client.callTool({ name: 'get_my_profile', arguments: {} });
    assert.equal(refused.isError, true);
    const body = refused.structuredContent as { error: string; code: string };
    assert.equal(body.code, 'UNAUTHORIZED');
    assert.match(body.error, /MARKETKIT_SESSION_JWT expired at 2026-01-15T13:00:00\.000Z/);
    assert.match(body.error, /MARKETKIT_API_TOKEN/);
  } finally {
    await session.close();
    await server.close();
  }
});

test('with MARKETKIT_SERVICE_KEY the process says it is for admin automation only and offers the admin actions', async () => {
  const serviceKey = 'k'.repeat(40);
  const server = await startServer({ serviceKey });
  const session = await connectStdio({ MARKETKIT_URL: server.url, MARKETKIT_SERVICE_KEY: serviceKey });
  try {
    assert.match(session.stderr(), /admin automation only/);
    const { tools } = await session.client.listTools();
    assert.ok(tools.length > 0 && tools.every((tool) => tool.name.startsWith('admin_')), tools.map((tool) => tool.name).join(', '));
    const queue = await callOk(session.client, 'admin_queue', { limit: 10 });
    assert.deepEqual(queue, { items: [], total: 0, limit: 10, offset: 0, has_more: false, next_cursor: null });
    const account = await callOk(session.client, 'admin_account', { account: server.seller.id });
    assert.equal(account.id, server.seller.id);
  } finally {
    await session.close();
    await server.close();
  }
});

test('stdout carries protocol only: a malformed line gets a parse error, a ping its answer, and the logs are on stderr; 2026-07-28 needs no headers here', async () => {
  const server = await startServer();
  const [command, ...prefix] = nodeCli();
  const child = spawn(command!, [...prefix, 'mcp'], {
    env: { ...process.env, MARKETKIT_URL: server.url, MARKETKIT_API_TOKEN: server.seller.token },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    child.stdin.write('{not json\n');
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'no_such_tool' } })}\n`);
    // stdio has no headers to mirror: a 2026-07-28 request is its _meta alone, which must still be whole.
    const version = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { ...version, 'io.modelcontextprotocol/clientCapabilities': {} } } })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: version } })}\n`);
    child.stdin.end();
    assert.equal(await closed, 0, stderr);
    const lines = stdout.trim().split('\n').map((line) => JSON.parse(line));
    const byId = new Map(lines.map((message) => [message.id, message]));
    assert.equal(lines.length, 5, stdout);
    assert.equal(byId.get(null).error.code, -32700);
    assert.deepEqual(byId.get(1), { jsonrpc: '2.0', id: 1, result: {} });
    assert.equal(byId.get(2).error.code, -32602);
    assert.equal(byId.get(3).result.resultType, 'complete');
    assert.equal(byId.get(4).error.code, -32602, 'no clientCapabilities');
    assert.match(stderr, /over stdio/);
  } finally {
    child.kill();
    await server.close();
  }
});

test('marketkit mcp without a credential stops with a message naming the variables; --help prints the options', async () => {
  const missing = await runCli(['mcp'], { MARKETKIT_URL: 'http://127.0.0.1:1' });
  assert.equal(missing.code, 2);
  assert.equal(missing.stdout, '');
  assert.match(missing.stderr, /MARKETKIT_API_TOKEN/);
  const help = await runCli(['mcp', '--help']);
  assert.equal(help.code, 0);
  for (const name of ['--url', 'MARKETKIT_API_TOKEN', 'MARKETKIT_SESSION_JWT', 'MARKETKIT_SERVICE_KEY']) assert.match(help.stdout, new RegExp(name));
});
