import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { nodeListener } from '../../bindings/node/index.js';
import { createMarketplace, type MarketplaceOptions } from '../../core/index.js';
import { mcpAccept, postMcp, postRaw } from '../fixtures/mcp.js';
import { startServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;

before(async () => {
  server = await startServer({ mcp: { allowedOrigins: ['https://inspector.example'], allowedHosts: ['dev.example'] } });
});

after(async () => {
  await server.close();
});

const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
const port = () => new URL(server.url).port;

test('GET and DELETE on /api/mcp are 405 with Allow: POST (no SSE stream, no sessions)', async () => {
  for (const method of ['GET', 'DELETE']) {
    const response = await fetch(`${server.url}/api/mcp`, { method, headers: { accept: 'text/event-stream' } });
    assert.equal(response.status, 405, method);
    assert.equal(response.headers.get('allow'), 'POST');
    assert.equal((await response.json()).jsonrpc, '2.0');
  }
});

test('a client that accepts only SSE gets 406; JSON, */* or no Accept at all are answered', async () => {
  const sseOnly = await postMcp(server, ping, { headers: { accept: 'text/event-stream' } });
  assert.equal(sseOnly.status, 406);
  assert.equal(sseOnly.body.error.code, -32600);
  assert.equal((await postMcp(server, ping, { headers: { accept: 'application/json;q=0, text/event-stream' } })).status, 406);
  for (const accept of [mcpAccept, 'application/json', '*/*', 'application/*;q=0.5']) {
    assert.equal((await postMcp(server, ping, { headers: { accept } })).status, 200, accept);
  }
  // Asked again, in another order, after answers to each value were kept (core/memo.ts): the same.
  for (const [accept, status] of [['application/json', 200], ['text/event-stream', 406], [mcpAccept, 200], ['application/json;q=0, text/event-stream', 406]] as const) {
    assert.equal((await postMcp(server, ping, { headers: { accept } })).status, status, accept);
  }
  const none = await fetch(`${server.url}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ping });
  assert.equal(none.status, 200);
});

test('a body that is not JSON by its content type is 415; one over the JSON limit is 413', async () => {
  const text = await postMcp(server, ping, { headers: { 'content-type': 'text/plain' } });
  assert.equal(text.status, 415);
  assert.equal(text.body.error.data.code, 'UNSUPPORTED_MEDIA_TYPE');
  const big = await postMcp(server, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1024 * 1024) } }));
  assert.equal(big.status, 413);
  assert.equal(big.body.error.data.code, 'PAYLOAD_TOO_LARGE');
});

test('OAuth discovery probes get a JSON 401 with WWW-Authenticate: Bearer', async () => {
  const paths = [
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/api/mcp',
    '/.well-known/oauth-authorization-server',
    '/.well-known/openid-configuration',
    '/api/mcp/.well-known/oauth-protected-resource',
    '/api/mcp/.well-known/oauth-authorization-server',
    '/api/mcp/.well-known/openid-configuration',
    '/register',
    '/authorize',
    '/token',
  ];
  for (const path of paths) {
    const response = await fetch(`${server.url}${path}`);
    assert.equal(response.status, 401, path);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer', path);
    assert.equal((await response.json()).code, 'UNAUTHORIZED', path);
  }
  const registration = await fetch(`${server.url}/register`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  assert.equal(registration.status, 401, 'dynamic client registration is a POST');
});

test('a wrong URL is 404', async () => {
  for (const path of ['/api/mcp/', '/api/mcp/tools', '/mcp', '/api/v1/mcp']) {
    assert.equal((await postMcp(server, ping, { path })).status, 404, path);
  }
});

test('every answer carries x-request-id, echoing a safe one the client sent', async () => {
  const answer = await postMcp(server, ping, { headers: { 'x-request-id': 'trace-42' } });
  assert.equal(answer.headers.get('x-request-id'), 'trace-42');
  assert.ok((await postMcp(server, 'not json')).headers.get('x-request-id'));
});

test('an Origin that is not allowed is 403 with a JSON-RPC error; an allowed one gets CORS headers', async () => {
  const refused = await postMcp(server, ping, { headers: { origin: 'https://evil.example' } });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.id, null);
  assert.equal(refused.body.error.data.code, 'FORBIDDEN');
  assert.equal((await postMcp(server, ping, { headers: { origin: 'null' } })).status, 403);
  const allowed = await postMcp(server, ping, { headers: { origin: 'https://inspector.example' } });
  assert.equal(allowed.status, 200);
  assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://inspector.example');
  const preflight = await fetch(`${server.url}/api/mcp`, {
    method: 'OPTIONS',
    headers: { origin: 'https://inspector.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
  });
  assert.equal(preflight.status, 204);
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /authorization/);
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://inspector.example');
});

test('on loopback, the page of the server\'s own origin may call; a rebound name may not, even with a matching Origin', async () => {
  const own = await postRaw(server, '/api/mcp', { host: `localhost:${port()}`, origin: `http://localhost:${port()}`, 'content-type': 'application/json' }, ping);
  assert.equal(own.status, 200);
  const rebound = await postRaw(server, '/api/mcp', { host: `evil.example:${port()}`, origin: `http://evil.example:${port()}`, 'content-type': 'application/json' }, ping);
  assert.equal(rebound.status, 403);
  assert.equal(JSON.parse(rebound.body).error.data.code, 'FORBIDDEN');
});

test('on loopback, a Host that is not a loopback name or an allowed host is 403', async () => {
  const post = (host: string) => postRaw(server, '/api/mcp', { host, 'content-type': 'application/json' }, ping);
  for (const host of [`localhost:${port()}`, `127.0.0.1:${port()}`, 'LOCALHOST', `dev.example:${port()}`]) {
    assert.equal((await post(host)).status, 200, host);
  }
  for (const host of [`evil.example:${port()}`, `localhost.evil.example:${port()}`, `127.0.0.2:${port()}`]) {
    assert.equal((await post(host)).status, 403, host);
  }
  // Again, each value now known: a refused Host stays refused, an accepted one accepted.
  for (const [host, status] of [[`evil.example:${port()}`, 403], [`localhost:${port()}`, 200], ['LOCALHOST', 200], [`127.0.0.2:${port()}`, 403]] as const) {
    assert.equal((await post(host)).status, status, host);
  }
});

test('the Host check reads the Host header, never an absolute-form request target', async () => {
  const absolute = await postRaw(server, `http://localhost:${port()}/api/mcp`, { host: `evil.example:${port()}`, 'content-type': 'application/json' }, ping);
  assert.equal(absolute.status, 403);
});

test('as middleware it claims /api/mcp, and the root-level probe paths only when told to', async () => {
  const hostApp = async (options: Partial<MarketplaceOptions>) => {
    const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), ...options });
    const listener = nodeListener(marketplace);
    const app = createServer((req, res) => listener(req, res, () => res.writeHead(299).end('the host app')));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    return { app, url: `http://127.0.0.1:${(app.address() as AddressInfo).port}` };
  };
  const plain = await hostApp({});
  const claiming = await hostApp({ mcp: { claimRootProbePaths: true } });
  try {
    assert.equal((await postMcp(plain, ping)).status, 200);
    assert.equal((await fetch(`${plain.url}/api/mcp/.well-known/oauth-protected-resource`)).status, 401);
    for (const path of ['/token', '/register', '/.well-known/openid-configuration']) {
      assert.equal((await fetch(`${plain.url}${path}`)).status, 299, `${path} is the host app's by default`);
      assert.equal((await fetch(`${claiming.url}${path}`)).status, 401, `${path} is claimed with mcp.claimRootProbePaths`);
    }
  } finally {
    for (const { app } of [plain, claiming]) {
      app.closeAllConnections();
      app.close();
    }
  }
});

test('bad MCP options say what to change', () => {
  assert.throws(
    () => createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), mcp: { allowedOrigins: ['https://app.example/path'] } }),
    /mcp.allowedOrigins must hold origins such as https:\/\/app.example/,
  );
  assert.throws(
    () => createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), mcp: { allowedHosts: ['http://dev.example'] } }),
    /mcp.allowedHosts must hold host names/,
  );
});

test('through the fetch binding the endpoint answers the same, with only the Origin check (it cannot tell loopback)', async () => {
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
  const post = (headers: Record<string, string>) =>
    marketplace.fetch(new Request('http://evil.example/api/mcp', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: ping }));
  const answer = await post({});
  assert.equal(answer.status, 200);
  assert.deepEqual(await answer.json(), { jsonrpc: '2.0', id: 1, result: {} });
  assert.equal((await post({ origin: 'http://evil.example' })).status, 403);
});
