/**
 * Every surface runs in the one request frame (issue 22): the testing kit's controls and a surface an
 * embedder adds through `createMarketplace({ surfaces })` get the frame's request id, its JSON body
 * reader (size limit, media type, syntax), its 405 with Allow from the one route matcher, and its
 * error framing with onError told of what is not the client's doing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { nodeListener } from '../../bindings/node/index.js';
import { ApiError, createMarketplace, type Exchange, type Surface } from '../../core/index.js';
import { createTestMarketplace } from '../../testing/index.js';

const json = { 'content-type': 'application/json' };

test('the test controls answer in the frame: request id, the body reader, 405 with Allow, errors in the error table', async () => {
  const mk = createTestMarketplace({ testControls: true });
  const controls = `${mk.url}/__marketkit`;

  const clock = await mk.fetch(`${controls}/clock`, { headers: { 'x-request-id': 'ctl-1' } });
  assert.equal(clock.status, 200);
  assert.equal(clock.headers.get('x-request-id'), 'ctl-1', 'the client’s request id comes back, as on every surface');
  const made = await mk.fetch(`${controls}/fixtures`);
  assert.match(made.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, 'a request id is made when none is sent');

  const wrongMethod = await mk.fetch(`${controls}/reset`, { method: 'GET' });
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.headers.get('allow'), 'POST');
  assert.equal((await wrongMethod.json()).code, 'METHOD_NOT_ALLOWED');
  const unknown = await mk.fetch(`${controls}/nothing`, { method: 'POST' });
  assert.equal(unknown.status, 404);
  assert.match((await unknown.json()).error, /No test control POST \/__marketkit\/nothing/);

  const text = await mk.fetch(`${controls}/clock`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"advance_ms":1}' });
  assert.equal(text.status, 415, 'the frame’s reader refuses a body that is not JSON by its type');
  const broken = await mk.fetch(`${controls}/clock`, { method: 'POST', headers: json, body: '{"advance_ms":' });
  assert.equal(broken.status, 400);
  assert.deepEqual((await broken.json()).details, [{ path: 'body', message: 'is not valid JSON' }]);
  const big = await mk.fetch(`${controls}/seed`, { method: 'POST', headers: json, body: JSON.stringify({ accounts: [], pad: 'x'.repeat(2 * 1024 * 1024) }) });
  assert.equal(big.status, 413, 'the frame’s size limit holds for the controls too');
  const array = await mk.fetch(`${controls}/clock`, { method: 'POST', headers: json, body: '[1]' });
  assert.equal(array.status, 400);
  assert.equal((await array.json()).details[0].path, 'body');

  const before = (await (await mk.fetch(`${controls}/clock`)).json()).now;
  const moved = await mk.fetch(`${controls}/clock`, { method: 'POST', headers: json, body: '{"advance_ms":60000}' });
  assert.equal(moved.status, 200);
  assert.equal(Date.parse((await moved.json()).now) - Date.parse(before), 60_000);

  const rule = await (await mk.fetch(`${controls}/faults`, { method: 'POST', headers: json, body: '{"target":"GET /me","kind":"rateLimit","times":1}' })).json();
  assert.equal((await mk.fetch(`${controls}/faults/${rule.id}`, { method: 'DELETE' })).status, 200);
  assert.equal((await mk.fetch(`${controls}/faults/${rule.id}`, { method: 'DELETE' })).status, 404, 'a fault removed twice');
  assert.equal(mk.requests.count(), 0, 'the controls’ own calls are not in the request log');
});

test('a surface an embedder adds gets the frame: request id, the JSON reader, ApiErrors framed, onError for the rest', async () => {
  const heard: { error: unknown; path: string; requestId: string }[] = [];
  const echo: Surface = {
    serves: (path) => path.startsWith('/hooks/'),
    async serve(exchange: Exchange) {
      if (exchange.path === '/hooks/fail') throw new Error('the surface broke');
      if (exchange.path === '/hooks/refuse') throw new ApiError('FORBIDDEN', 'Not for you.');
      const body = await exchange.readJson();
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ got: body, query: exchange.query }) };
    },
  };
  const marketplace = createMarketplace({
    storage: memoryStorage(),
    blobs: memoryBlobs(),
    surfaces: [echo],
    onError: (error, request) => heard.push({ error, path: request.path, requestId: request.requestId }),
  });
  const call = (path: string, init?: RequestInit) => marketplace.fetch(new Request(`http://market.test${path}`, init));

  const ok = await call('/hooks/echo?x=1', { method: 'POST', headers: { ...json, 'x-request-id': 'hook-1' }, body: '{"a":1}' });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('x-request-id'), 'hook-1');
  assert.deepEqual(await ok.json(), { got: { a: 1 }, query: 'x=1' });

  const refused = await call('/hooks/refuse');
  assert.equal(refused.status, 403);
  assert.deepEqual(await refused.json(), { error: 'Not for you.', code: 'FORBIDDEN' });
  assert.equal(heard.length, 0, 'a refusal is the client’s doing: onError hears nothing');

  const failed = await call('/hooks/fail', { headers: { 'x-request-id': 'hook-2' } });
  assert.equal(failed.status, 500);
  const body = await failed.json();
  assert.equal(body.code, 'INTERNAL_ERROR');
  assert.doesNotMatch(JSON.stringify(body), /the surface broke/, 'the cause is never sent');
  assert.deepEqual(heard.map((h) => [h.path, h.requestId, (h.error as Error).message]), [['/hooks/fail', 'hook-2', 'the surface broke']]);

  const badJson = await call('/hooks/echo', { method: 'POST', headers: json, body: '{' });
  assert.equal(badJson.status, 400);
  assert.equal((await call('/api/v1/health')).status, 200, 'the built-in surfaces still answer their paths');

  // Mounted as middleware, the listener keeps the surface's paths and passes every other one on.
  const listener = nodeListener(marketplace);
  const server = createServer((req, res) => listener(req, res, () => res.writeHead(418).end('the host app')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const mounted = await fetch(`${base}/hooks/echo?y=2`, { method: 'POST', headers: json, body: '{"b":2}' });
    assert.equal(mounted.status, 200, 'the middleware keeps the surface’s path');
    assert.deepEqual(await mounted.json(), { got: { b: 2 }, query: 'y=2' });
    const passed = await fetch(`${base}/elsewhere`);
    assert.equal(passed.status, 418, 'a path nobody serves goes on to the host app');
    assert.equal(await passed.text(), 'the host app');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }

  assert.throws(() => createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), surfaces: [{} as Surface] }), /surfaces must hold surfaces with serves\(path\) and serve\(exchange\)/);
});
