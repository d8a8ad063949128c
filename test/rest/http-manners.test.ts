/**
 * HTTP manners a browser app, an uptime checker or `curl -I` relies on (docs/rest.md, "HEAD" and
 * "Browsers (CORS)"): HEAD wherever GET is, and CORS for the configured origins on REST and the
 * signed-URL PUT, with MCP keeping its own Origin check.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { request } from 'node:http';
import { as, pngBytes, startServer, validAsset, type TestServer } from '../fixtures/server.js';
import { startCli, startCliServer } from '../fixtures/cli.js';

/** A raw HEAD over node:http, so that a body sent after the headers would be seen (fetch drops it). */
function rawHead(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'HEAD', headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HEAD is answered wherever GET is: the same status and headers, no body', () => {
  let server: TestServer;
  before(async () => (server = await startServer()));
  after(() => server.close());

  test('health, the OpenAPI document, reads with a token, a 401, a 404 and a public image', async () => {
    const auth = { authorization: `Bearer ${server.seller.token}` };
    const created = await as(server, server.seller.token).post('/assets', validAsset());
    const issued = await as(server, server.seller.token).post(`/assets/${created.body.id}/images/upload-url`, { filename: 'shot.png' });
    await fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: pngBytes as BodyInit });
    await as(server, server.seller.token).post(`/assets/${created.body.id}/confirm-image`, { public_url: issued.body.public_url });
    for (const [path, headers] of [
      ['/api/v1/health', {}],
      ['/api/v1/openapi.json', {}],
      ['/api/v1/me', auth],
      [`/api/v1/assets/${created.body.id}`, auth],
      ['/api/v1/assets', {}],
      ['/api/v1/no-such-endpoint', {}],
      [new URL(issued.body.public_url).pathname, {}],
    ] as const) {
      const get = await fetch(`${server.url}${path}`, { headers });
      const body = new Uint8Array(await get.arrayBuffer());
      const head = await rawHead(`${server.url}${path}`, headers);
      assert.equal(head.status, get.status, path);
      assert.equal(head.bytes, 0, `${path}: no body`);
      assert.equal(head.headers['content-type'], get.headers.get('content-type'), path);
      assert.equal(head.headers['content-length'], String(body.byteLength), `${path}: the length GET's body has`);
    }
  });

  test('a 405 lists HEAD beside GET in Allow', async () => {
    const refused = await fetch(`${server.url}/api/v1/me`, { method: 'PUT', headers: { authorization: `Bearer ${server.seller.token}` } });
    assert.equal(refused.status, 405);
    assert.equal(refused.headers.get('allow'), 'GET, HEAD, PATCH');
  });
});

describe('CORS for the configured origins', () => {
  const app = 'https://dashboard.example';
  let server: TestServer;
  before(async () => (server = await startServer({ corsOrigins: [app] })));
  after(() => server.close());

  test('a preflight from an allowed origin is 204 with the methods, the headers (Idempotency-Key included) and a max age', async () => {
    const answer = await fetch(`${server.api}/assets`, {
      method: 'OPTIONS',
      headers: { origin: app, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' },
    });
    assert.equal(answer.status, 204);
    assert.equal(answer.headers.get('access-control-allow-origin'), app);
    assert.match(answer.headers.get('access-control-allow-methods')!, /\bPOST\b.*\bPATCH\b.*\bDELETE\b/);
    for (const name of ['authorization', 'content-type', 'idempotency-key']) assert.match(answer.headers.get('access-control-allow-headers')!, new RegExp(`\\b${name}\\b`));
    assert.equal(answer.headers.get('access-control-max-age'), '600');
    assert.match(answer.headers.get('vary')!, /origin/i);
    assert.equal(answer.headers.get('access-control-allow-credentials'), null, 'bearer tokens, no cookies');
  });

  test('answers to an allowed origin, errors included, carry the origin and expose the rate-limit, retry and request-id headers', async () => {
    const auth = { authorization: `Bearer ${server.seller.token}`, origin: app };
    const ok = await fetch(`${server.api}/me`, { headers: auth });
    const refused = await fetch(`${server.api}/assets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"title":""}' });
    const unauthorized = await fetch(`${server.api}/me`, { headers: { origin: app } });
    for (const answer of [ok, refused, unauthorized]) {
      assert.equal(answer.headers.get('access-control-allow-origin'), app, String(answer.status));
      const exposed = answer.headers.get('access-control-expose-headers')!;
      for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'x-request-id', 'idempotent-replayed']) assert.match(exposed, new RegExp(`\\b${name}\\b`));
      assert.match(answer.headers.get('vary')!, /origin/i);
    }
    assert.deepEqual([ok.status, refused.status, unauthorized.status], [200, 400, 401]);
  });

  test('the signed-URL PUT takes a preflight and answers with the origin', async () => {
    const created = await as(server, server.seller.token).post('/assets', validAsset());
    const issued = await as(server, server.seller.token).post(`/assets/${created.body.id}/upload-url`, { filename: 'pack.zip' });
    const preflight = await fetch(issued.body.signed_url, { method: 'OPTIONS', headers: { origin: app, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' } });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-methods')!, /\bPUT\b/);
    const put = await fetch(issued.body.signed_url, { method: 'PUT', headers: { origin: app, 'content-type': 'application/zip' }, body: 'PK' });
    assert.equal(put.status, 200);
    assert.equal(put.headers.get('access-control-allow-origin'), app);
  });

  test('another origin gets no CORS header, its preflight is not allowed, and the MCP endpoint keeps its own Origin check', async () => {
    const other = 'https://evil.example';
    const answer = await fetch(`${server.api}/me`, { headers: { authorization: `Bearer ${server.seller.token}`, origin: other } });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('access-control-allow-origin'), null);
    const preflight = await fetch(`${server.api}/assets`, { method: 'OPTIONS', headers: { origin: other, 'access-control-request-method': 'POST' } });
    assert.notEqual(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    const mcp = await fetch(`${server.url}/api/mcp`, { method: 'POST', headers: { origin: app, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    assert.equal(mcp.status, 403, 'corsOrigins is the REST API’s; /api/mcp allows the origins of mcp.allowedOrigins');
  });

  test('no origins configured: no CORS header at all, and no Vary', async () => {
    const plain = await startServer();
    try {
      const answer = await fetch(`${plain.api}/health`, { headers: { origin: app } });
      assert.equal(answer.headers.get('access-control-allow-origin'), null);
      assert.equal(answer.headers.get('vary'), null);
    } finally {
      await plain.close();
    }
  });

  test('an origin with a path, or no scheme, is refused when the marketplace is made', async () => {
    for (const bad of ['https://app.example/', 'app.example', 'https://app.example/path']) {
      await assert.rejects(startServer({ corsOrigins: [bad] }), /corsOrigins must hold origins such as https:\/\/app\.example/);
    }
  });
});

test('serve --cors-origin (and MARKETKIT_CORS_ORIGINS) allows those pages on REST and MCP, and the banner says which', async (t) => {
  const app = 'http://localhost:5173';
  const server = await startCliServer(['--memory', '--cors-origin', app]);
  t.after(() => server.stop('SIGKILL'));
  const answer = await fetch(`${server.info.url}/api/v1/me`, { headers: { authorization: `Bearer ${server.info.dev_seller.token}`, origin: app } });
  assert.equal(answer.headers.get('access-control-allow-origin'), app);
  const mcp = await fetch(`${server.info.url}/api/mcp`, { method: 'POST', headers: { origin: app, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
  assert.equal(mcp.status, 200);
  assert.equal(mcp.headers.get('access-control-allow-origin'), app);

  const fromEnv = await startCli(['serve', '--memory', '--port', '0'], (out) => out.includes('Stop with Ctrl-C.'), { MARKETKIT_CORS_ORIGINS: 'https://a.example,https://b.example' });
  t.after(() => fromEnv.stop('SIGKILL'));
  assert.match(fromEnv.stdout(), /^ {2}Browsers {4}pages of https:\/\/a\.example, https:\/\/b\.example may call the API \(CORS\)$/m);
  const url = /is serving (\S+)/.exec(fromEnv.stdout())![1]!;
  assert.equal((await fetch(`${url}/api/v1/health`, { headers: { origin: 'https://b.example' } })).headers.get('access-control-allow-origin'), 'https://b.example');
});
