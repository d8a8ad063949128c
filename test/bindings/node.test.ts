import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { memoryBlobs, memoryStorage } from '../../adapters/memory/index.js';
import { nodeListener, serve } from '../../bindings/node/index.js';
import { createMarketplace } from '../../core/index.js';
import { rawConnection } from '../fixtures/raw-http.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('as middleware, it serves its own paths and passes every other request on', async () => {
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
  const listener = nodeListener(marketplace);
  const server = createServer((req, res) =>
    listener(req, res, () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('the host app');
    }),
  );
  const url = await listen(server);
  try {
    assert.equal(await (await fetch(`${url}/`)).text(), 'the host app');
    assert.equal(await (await fetch(`${url}/about`)).text(), 'the host app');
    const health = await fetch(`${url}/api/v1/health`);
    assert.equal(health.status, 200);
    assert.equal((await health.json()).status, 'ok');
    assert.equal((await fetch(`${url}/api/v1/nope`)).status, 404, 'paths under /api/v1 are the marketplace’s, known or not');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('mounted under a prefix, the URLs it builds carry the prefix', async () => {
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
  const seller = await marketplace.admin.createAccount({ username: 'mounted' });
  const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 't' });
  const listener = nodeListener(marketplace, { basePath: '/market' });
  // What a router does when it mounts a handler on a prefix: strip it from req.url.
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/market/')) {
      req.url = req.url.slice('/market'.length);
      listener(req, res);
    } else {
      res.writeHead(404).end();
    }
  });
  const url = await listen(server);
  try {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await (await fetch(`${url}/market/api/v1/assets`, { method: 'POST', headers, body: JSON.stringify({ title: 'Mounted', slug: 'mounted' }) })).json();
    const issued = await (await fetch(`${url}/market/api/v1/assets/${created.id}/upload-url`, { method: 'POST', headers, body: '{"filename":"a.zip"}' })).json();
    assert.ok(issued.signed_url.startsWith(`${url}/market/api/v1/blobs/`), issued.signed_url);
    assert.equal((await fetch(issued.signed_url, { method: 'PUT', body: 'bytes' })).status, 200);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('serve() listens, reports its URL and closes', async () => {
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
  const running = await serve(marketplace, { port: 0 });
  assert.match(running.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await fetch(`${running.url}/api/v1/health`)).status, 200);
  await running.close();
  await assert.rejects(fetch(`${running.url}/api/v1/health`));
});

test('createMarketplace says what to change when given bad options', () => {
  assert.throws(() => createMarketplace({ storage: {} as never, blobs: memoryBlobs() }), /marketkit createMarketplace: .*storage must be a storage adapter/);
  assert.throws(
    () => createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), signingSecret: 'short' }),
    /signingSecret must be at least 32 bytes/,
  );
  assert.throws(() => createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), siteUrl: 'ftp://x' }), /siteUrl/);
});

test('a JSON body is read however it arrives, and the connection stays open for the next request', async () => {
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
  const running = await serve(marketplace, { port: 0 });
  const connection = rawConnection(running.url);
  const head = (extra: string) => `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}\r\n`;
  const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;
  const expectPong = async (id: number) => {
    const answer = await connection.answer();
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), { jsonrpc: '2.0', id, result: {} });
    assert.doesNotMatch(answer.headers, /connection: close/, 'a body read whole keeps the connection');
  };
  try {
    // With the headers in one packet, as most clients send a small request.
    await connection.write(`${head(`Content-Length: ${ping(1).length}\r\n`)}${ping(1)}`);
    await expectPong(1);
    // The body later than the headers, and itself in two parts.
    await connection.write(head(`Content-Length: ${ping(2).length}\r\n`));
    await new Promise((resolve) => setTimeout(resolve, 30));
    await connection.write(ping(2).slice(0, 10));
    await new Promise((resolve) => setTimeout(resolve, 30));
    await connection.write(ping(2).slice(10));
    await expectPong(2);
    // Chunked, without a Content-Length: read to its last chunk.
    const body = ping(3);
    await connection.write(`${head('Transfer-Encoding: chunked\r\n')}${(7).toString(16)}\r\n${body.slice(0, 7)}\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await connection.write(`${(body.length - 7).toString(16)}\r\n${body.slice(7)}\r\n0\r\n\r\n`);
    await expectPong(3);
    // An empty body (Content-Length: 0), as fetch sends a bodiless POST: nothing to read, nothing owed.
    await connection.write(head('Content-Length: 0\r\n'));
    const empty = await connection.answer();
    assert.equal(empty.status, 400, empty.body);
    assert.equal(JSON.parse(empty.body).error.code, -32700);
    assert.doesNotMatch(empty.headers, /connection: close/, 'an empty body keeps the connection');
    // Two requests in one write (pipelined): each is answered, in order.
    await connection.write(`${head(`Content-Length: ${ping(4).length}\r\n`)}${ping(4)}${head(`Content-Length: ${ping(5).length}\r\n`)}${ping(5)}`);
    await expectPong(4);
    await expectPong(5);
    assert.equal(connection.closed(), false);
  } finally {
    connection.end();
    await running.close();
  }
});

test('answers made in the same turn of the event loop (written together at its end) each reach their own connection, in order', { timeout: 30_000 }, async () => {
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs() });
  const running = await serve(marketplace, { port: 0 });
  const connections = Array.from({ length: 40 }, () => rawConnection(running.url));
  const post = (body: string) => `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;
  try {
    // Connected first, so that the requests below arrive together: three pipelined per connection,
    // the middle one unparseable (a 400 among the 200s).
    await Promise.all(connections.map((connection) => connection.write('')));
    await Promise.all(connections.map((connection, i) => connection.write(`${post(ping(i * 10 + 1))}${post('{"jsonrpc"')}${post(ping(i * 10 + 2))}`)));
    await Promise.all(
      connections.map(async (connection, i) => {
        const first = await connection.answer();
        assert.equal(first.status, 200, first.body);
        assert.deepEqual(JSON.parse(first.body), { jsonrpc: '2.0', id: i * 10 + 1, result: {} });
        const refused = await connection.answer();
        assert.equal(refused.status, 400, refused.body);
        assert.equal(JSON.parse(refused.body).error.code, -32700);
        const last = await connection.answer();
        assert.equal(last.status, 200, last.body);
        assert.deepEqual(JSON.parse(last.body), { jsonrpc: '2.0', id: i * 10 + 2, result: {} });
        assert.equal(connection.closed(), false);
      }),
    );
  } finally {
    for (const connection of connections) connection.end();
    await running.close();
  }
});

test('serve(): an answer the server works on for longer than idleTimeoutSeconds still arrives (the store, not the client, is slow); an idle connection is still closed', async (t) => {
  const { as, startServer, validAsset } = await import('../fixtures/server.js');
  const store = memoryBlobs();
  // A blob store whose move takes 2.5 s, as a copy of gigabytes in S3 takes minutes: the client says nothing meanwhile.
  const slowMoves = Object.assign(Object.create(Object.getPrototypeOf(store)), store, {
    move: async (from: string, to: string) => {
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      return store.move(from, to);
    },
  });
  const server = await startServer({ blobs: slowMoves }, { idleTimeoutSeconds: 1 });
  t.after(() => server.close());
  const client = as(server, server.seller.token);
  const id = (await client.post('/assets', validAsset())).body.id as string;
  const issued = (await client.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' })).body;
  assert.equal((await fetch(issued.signed_url, { method: 'PUT', body: 'the pack' })).status, 200);
  const started = Date.now();
  const confirmed = await client.post(`/assets/${id}/confirm-file`, { storage_path: issued.storage_path, file_size: 8 });
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  assert.ok(Date.now() - started >= 2_400, 'the answer did wait for the slow store');
  // A connection that sends nothing is still closed by the idle timer (the keep-alive timeout comes first after an answer).
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
  const closedAfter = await new Promise<number>((resolve) => {
    const opened = Date.now();
    socket.on('close', () => resolve(Date.now() - opened));
  });
  assert.ok(closedAfter < 15_000, `a silent connection was closed (after ${closedAfter} ms)`);
});
