/**
 * The limits against slow clients (docs/security.md, "Time limits and connections") on the real
 * Node, Bun and Deno, each serving with its own binding as `marketkit serve` does, with small limits
 * so that the test runs in seconds. The pentest's attack, scaled down in time: 500 sockets that
 * declare a 1 MB body to /api/mcp and send one byte every 1.5 s must all be answered 408 and closed
 * within the body timeout, while a normal request and a legitimate upload at 64 KB/s go through.
 * A limit a runtime cannot enforce is reported with a diagnostic that says so, never skipped:
 * Deno.serve (marketkit/bindings/deno) sends the 408 but cannot close a connection whose client
 * keeps sending (nor time headers or idle connections), which is why `marketkit serve` on Deno uses
 * the Node binding on Deno's node:http, which enforces every limit (docs/security.md).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { runScript, type Runtime } from '../fixtures/cli.js';
import { as, validAsset } from '../fixtures/server.js';
import type { ConnectionLimits } from '../../bindings/limits.js';

const root = new URL('../../', import.meta.url).pathname;
const script = new URL('on-runtime/limited-server.ts', import.meta.url).pathname;

/** The limits of the main server: two seconds for everything, so that a broken one shows in seconds. */
const limits = {
  headersTimeoutSeconds: 2,
  bodyTimeoutSeconds: 2,
  uploadMinBytesPerSecond: 1024,
  uploadRateWindowSeconds: 2,
  keepAliveTimeoutSeconds: 2,
} satisfies ConnectionLimits;

/** Slack for a loaded machine (two cores shared by several test runs) and the watchdog's tick. */
const slackMs = 4000;

interface Served {
  url: string;
  host: string;
  port: number;
  token: string;
  runtime: Runtime;
  child: ChildProcess;
  stderr(): string;
}

/** A runtime and binding under test, and what it can enforce (measured: docs/security.md). */
interface Target {
  name: string;
  runtime: Runtime;
  /** Serve with marketkit/bindings/deno (Deno.serve) instead of what `marketkit serve` uses on Deno (node:http). */
  denoServe?: boolean;
  /** Whether the server closes the connection of a client that keeps dripping a body it answered 408. */
  closesDrippingBodies: boolean;
  /** The headers timeout: the configured one, Bun's own 10 s, or none at all (Deno.serve). */
  headers: 'configured' | 'bun' | 'none';
  keepAlive: boolean;
}

const targets: Target[] = [
  { name: 'node', runtime: 'node', closesDrippingBodies: true, headers: 'configured', keepAlive: true },
  { name: 'bun', runtime: 'bun', closesDrippingBodies: true, headers: 'bun', keepAlive: true },
  { name: 'deno (node:http, as marketkit serve)', runtime: 'deno', closesDrippingBodies: true, headers: 'configured', keepAlive: true },
  { name: 'deno with Deno.serve (marketkit/bindings/deno)', runtime: 'deno', denoServe: true, closesDrippingBodies: false, headers: 'none', keepAlive: false },
];

async function startServer(target: Target, configured: ConnectionLimits & { idleTimeoutSeconds?: number }): Promise<Served> {
  const { runtime } = target;
  const [command, ...args] = runScript(runtime, script);
  const env = { ...process.env, MARKETKIT_TEST_LIMITS: JSON.stringify(configured), ...(target.denoServe ? { MARKETKIT_TEST_BINDING: 'deno' } : {}) };
  const child = spawn(command!, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const line = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server on ${runtime} exited (${code}): ${stderr}`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  const info = JSON.parse(line) as { url: string; runtime: Runtime; token: string };
  assert.equal(info.runtime, runtime);
  const { hostname, port } = new URL(info.url);
  return { ...info, host: hostname, port: Number(port), child, stderr: () => stderr };
}

async function stopServer(server: Served | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGKILL');
  await exited;
}

/** A raw connection and what came back on it; `closed` resolves with the time it closed. */
interface RawConnection {
  socket: Socket;
  openedAt: number;
  received(): string;
  closed: Promise<number>;
  isClosed(): boolean;
}

function open(server: Served, firstBytes: string): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    let received = '';
    let closedAt = 0;
    const socket = connect(server.port, server.host);
    const closed = new Promise<number>((settle) =>
      socket.once('close', () => {
        closedAt = Date.now();
        settle(closedAt);
      }),
    );
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    // A reset after the answer is a close like any other here.
    socket.on('error', () => {});
    socket.once('connect', () => {
      if (firstBytes) socket.write(firstBytes);
      resolve({ socket, openedAt: Date.now(), received: () => received, closed, isClosed: () => closedAt !== 0 });
    });
    socket.once('error', reject);
  });
}

function head(server: Served, method: string, target: string, headers: string[]): string {
  return `${method} ${target} HTTP/1.1\r\nHost: ${server.host}:${server.port}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;
}

/** The head of a request to /api/mcp that declares a 1 MB body (and sends none of it). */
function slowMcpHead(server: Served): string {
  return head(server, 'POST', '/api/mcp', ['Content-Type: application/json', 'Accept: application/json, text/event-stream', 'Content-Length: 1000000']);
}

function statusOf(received: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
}

/** Resolves with the time `connection` closed, or null if it is still open after `ms`. */
async function closedWithin(connection: RawConnection, ms: number): Promise<number | null> {
  return Promise.race([connection.closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), ms))]);
}

/** A draft listing and a signed upload URL for its file, through the REST flow. */
async function signedUploadUrl(server: Served): Promise<{ assetId: string; url: URL; storagePath: string }> {
  const client = as({ api: `${server.url}/api/v1` }, server.token);
  const created = await client.post('/assets', validAsset());
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const issued = await client.post(`/assets/${created.body.id}/upload-url`, { filename: 'pack.zip' });
  assert.equal(issued.status, 200, JSON.stringify(issued.body));
  return { assetId: created.body.id, url: new URL(issued.body.signed_url), storagePath: issued.body.storage_path };
}

/** PUTs `size` bytes to a signed URL at `bytesPerSecond`, in 8 KiB steps; the answer's status and how long it took. */
async function uploadAtRate(server: Served, url: URL, size: number, bytesPerSecond: number): Promise<{ status: number; body: string; ms: number }> {
  const connection = await open(server, head(server, 'PUT', url.pathname + url.search, ['Content-Type: application/zip', `Content-Length: ${size}`]));
  const step = 8 * 1024;
  let sent = 0;
  const timer = setInterval(() => {
    if (connection.isClosed()) return clearInterval(timer);
    const n = Math.min(step, size - sent);
    connection.socket.write(Buffer.alloc(n, 0x5a));
    sent += n;
    if (sent >= size) clearInterval(timer);
  }, (1000 * step) / bytesPerSecond);
  // The answer is whole once its JSON is: read until then (the connection may stay open).
  while (!/\r\n\r\n\{.*\}$/s.test(connection.received()) && !connection.isClosed()) await new Promise((resolve) => setTimeout(resolve, 50));
  clearInterval(timer);
  const received = connection.received();
  connection.socket.destroy();
  return { status: statusOf(received), body: received.slice(received.indexOf('\r\n\r\n') + 4), ms: Date.now() - connection.openedAt };
}

/** Resolves once `connection` received an answer's head, or after `ms`. */
async function answeredWithin(connection: RawConnection, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (statusOf(connection.received()) === 0 && !connection.isClosed() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
}

for (const target of targets) {
  const { runtime } = target;
  describe(`slow clients on ${target.name}`, { concurrency: true }, () => {
    let server: Served;
    before(async () => {
      server = await startServer(target, limits);
    });
    after(async () => {
      await stopServer(server);
      assert.doesNotMatch(server?.stderr() ?? '', /MARKETKIT INTERNAL ERROR/, 'no request was answered with INTERNAL_ERROR');
    });

    test('500 slow bodies to /api/mcp are answered 408 and closed within the body timeout; a normal request and a 64 KB/s upload go through meanwhile', { timeout: 90_000 }, async (t) => {
      const upload = await signedUploadUrl(server);
      const connections: RawConnection[] = [];
      for (let i = 0; i < 500; i++) connections.push(await open(server, slowMcpHead(server)));
      // One byte every 1.5 s on every socket still open: a body that would take 17 days.
      const drip = setInterval(() => {
        for (const connection of connections) if (!connection.isClosed()) connection.socket.write('x');
      }, 1500);
      try {
        // A legitimate upload, slower than the JSON body timeout allows a body to take: 320 KiB at 64 KiB/s.
        const uploading = uploadAtRate(server, upload.url, 320 * 1024, 64 * 1024);
        await new Promise((resolve) => setTimeout(resolve, 500));
        const health = await fetch(`${server.url}/api/v1/health`);
        assert.equal(health.status, 200, 'a normal request is served while the 500 sockets drip');
        await health.text();

        const budget = limits.bodyTimeoutSeconds * 1000 + slackMs;
        const closedAt = await Promise.all(connections.map((connection) => closedWithin(connection, budget + 2000)));
        const open = closedAt.filter((at) => at === null).length;
        if (target.closesDrippingBodies) {
          assert.equal(open, 0, `${open} of 500 slow-body sockets were still open ${budget + 2000} ms after they opened`);
          const lifetimes = connections.map((connection, i) => closedAt[i]! - connection.openedAt);
          const longest = Math.max(...lifetimes);
          assert.ok(longest <= budget, `every socket closed within ${budget} ms (body timeout ${limits.bodyTimeoutSeconds} s + slack); the longest took ${longest} ms`);
        } else {
          t.diagnostic(
            `NOT ENFORCED ON ${target.name.toUpperCase()}: every slow body is answered 408, but ${open} of 500 sockets were STILL OPEN ${budget + 2000} ms after they opened: Deno.serve keeps reading a body its handler gave up on for as long as the client sends, and a handler cannot close the connection. marketkit serve on Deno uses marketkit/bindings/node for this (docs/security.md).`,
          );
        }
        const answered = connections.filter((connection) => statusOf(connection.received()) === 408);
        assert.equal(answered.length, 500, `every slow body was answered 408 before its socket closed (${answered.length} were)`);
        const answer = answered[0]!.received();
        const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
        // The MCP endpoint refuses an HTTP request as a JSON-RPC error carrying the REST error body.
        assert.equal(json.error.data.code, 'REQUEST_TIMEOUT', answer);
        assert.equal(json.error.code, -31408);

        const uploaded = await uploading;
        assert.equal(uploaded.status, 200, `the 64 KiB/s upload completes (${uploaded.body})`);
        assert.ok(uploaded.ms > limits.bodyTimeoutSeconds * 1000, 'it took longer than a JSON body may, and was not cut');
        const confirmed = await as({ api: `${server.url}/api/v1` }, server.token).post(`/assets/${upload.assetId}/confirm-file`, { storage_path: upload.storagePath, file_size: 320 * 1024 });
        assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
      } finally {
        clearInterval(drip);
        for (const connection of connections) connection.socket.destroy();
      }
    });

    test('a stalled upload is answered 408 within two rate windows and nothing of it is kept', { timeout: 60_000 }, async (t) => {
      const upload = await signedUploadUrl(server);
      const connection = await open(server, head(server, 'PUT', upload.url.pathname + upload.url.search, ['Content-Type: application/zip', 'Content-Length: 100000']));
      connection.socket.write(Buffer.alloc(10_000, 0x5a));
      // The first window has its 10 KB; the next has nothing, and ends the upload.
      const budget = 2 * limits.uploadRateWindowSeconds * 1000 + slackMs;
      const closed = await closedWithin(connection, budget);
      if (target.closesDrippingBodies) assert.notEqual(closed, null, `the stalled upload was still open after ${budget} ms`);
      else t.diagnostic(`${target.name}: the stalled upload was answered, and its connection was ${closed ? 'closed' : 'STILL OPEN'} after ${budget} ms`);
      connection.socket.destroy();
      assert.equal(statusOf(connection.received()), 408, connection.received());
      assert.match(connection.received(), /"code":"REQUEST_TIMEOUT"/);
      const confirm = await as({ api: `${server.url}/api/v1` }, server.token).post(`/assets/${upload.assetId}/confirm-file`, { storage_path: upload.storagePath, file_size: 100_000 });
      assert.equal(confirm.status, 400, `nothing was stored: ${JSON.stringify(confirm.body)}`);
    });

    test('a slow JSON body to the REST API is answered 408 within the body timeout', { timeout: 60_000 }, async (t) => {
      const connection = await open(
        server,
        head(server, 'POST', '/api/v1/assets', [`Authorization: Bearer ${server.token}`, 'Content-Type: application/json', 'Content-Length: 5000']),
      );
      connection.socket.write('{"title":');
      const budget = limits.bodyTimeoutSeconds * 1000 + slackMs;
      if (target.closesDrippingBodies) assert.notEqual(await closedWithin(connection, budget), null, `still open after ${budget} ms`);
      else {
        await answeredWithin(connection, budget);
        // The client here sends nothing more: Deno closes once its answer is written.
        t.diagnostic(`${target.name}: answered in time; connection ${(await closedWithin(connection, 1000)) ? 'closed' : 'STILL OPEN'}`);
      }
      connection.socket.destroy();
      assert.equal(statusOf(connection.received()), 408, connection.received());
      assert.match(connection.received(), /\{"error":"[^"]+","code":"REQUEST_TIMEOUT"\}$/);
    });

    test('headers that do not arrive in time close the connection', { timeout: 60_000 }, async (t) => {
      const silent = await open(server, '');
      const dripping = await open(server, 'GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n');
      const drip = setInterval(() => dripping.isClosed() || dripping.socket.write('X-Slow: 1\r\n'), 500);
      // Bun's headers timeout is its own, 10 s, checked every 4 s or so: headersTimeoutSeconds cannot change it.
      const budget = target.headers === 'bun' ? 10_000 + 4000 + slackMs : limits.headersTimeoutSeconds * 1000 + slackMs;
      if (target.headers === 'bun') t.diagnostic(`Bun: headersTimeoutSeconds (${limits.headersTimeoutSeconds} s here) is not Bun's to set; its own headers timeout is 10 s`);
      try {
        const [silentClosed, drippingClosed] = await Promise.all([closedWithin(silent, budget), closedWithin(dripping, budget)]);
        if (target.headers === 'none') {
          t.diagnostic(
            `NOT ENFORCED ON ${target.name.toUpperCase()}: Deno.serve has no headers timeout; after ${budget} ms a silent connection was ${silentClosed ? 'closed' : 'STILL OPEN'} and one dripping its headers was ${drippingClosed ? 'closed' : 'STILL OPEN'} (docs/security.md says so; put a proxy with a headers timeout in front)`,
          );
          return;
        }
        assert.notEqual(silentClosed, null, `a silent connection was still open after ${budget} ms`);
        assert.notEqual(drippingClosed, null, `a connection dripping its headers was still open after ${budget} ms`);
        if (target.headers === 'configured') {
          assert.equal(statusOf(silent.received()), 408);
          assert.match(silent.received(), /"code":"REQUEST_TIMEOUT"/);
        }
      } finally {
        clearInterval(drip);
        silent.socket.destroy();
        dripping.socket.destroy();
      }
    });

    test('an idle keep-alive connection is closed after the keep-alive timeout', { timeout: 60_000 }, async (t) => {
      const connection = await open(server, head(server, 'GET', '/api/v1/health', []));
      const budget = limits.keepAliveTimeoutSeconds * 1000 + slackMs + (runtime === 'bun' ? 4000 : 0);
      const closed = await closedWithin(connection, budget);
      connection.socket.destroy();
      assert.equal(statusOf(connection.received()), 200);
      if (!target.keepAlive) {
        t.diagnostic(`NOT ENFORCED ON ${target.name.toUpperCase()}: Deno.serve has no keep-alive timeout; an idle connection was ${closed ? 'closed' : 'STILL OPEN'} after ${budget} ms`);
        return;
      }
      assert.notEqual(closed, null, `an idle keep-alive connection was still open after ${budget} ms`);
    });

    test('the binding fills CoreRequest.clientAddress with the peer address', async () => {
      const answer = await fetch(`${server.url}/__client-address`);
      assert.deepEqual(await answer.json(), { clientAddress: '127.0.0.1' });
    });
  });

  describe(`the server's own work is not the client's silence on ${target.name}`, () => {
    let server: Served;
    before(async () => {
      // An idle timeout of 1 s (Bun checks it every 4 s or so), and answers that take 6 s of the server's work.
      server = await startServer(target, { ...limits, idleTimeoutSeconds: 1 });
    });
    after(() => stopServer(server));

    test('a request whose answer takes longer than idleTimeoutSeconds is answered, with a short body or none', { timeout: 60_000 }, async () => {
      const [posted, got] = await Promise.all([
        fetch(`${server.url}/__slow?ms=6000`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"storage_path":"x"}' }),
        fetch(`${server.url}/__slow?ms=6000`),
      ]);
      assert.deepEqual([posted.status, await posted.json()], [200, { read: 20, waited: 6000 }]);
      assert.deepEqual([got.status, await got.json()], [200, { read: 0, waited: 6000 }]);
    });
  });

  describe(`the connection cap per client address on ${target.name}`, () => {
    let server: Served;
    const cap = 5;
    before(async () => {
      // Loopback is exempt by default (a proxy on the same host); counted here so that the test can reach the cap.
      server = await startServer(target, { maxConnectionsPerAddress: cap, limitLoopback: true, bodyTimeoutSeconds: 30 });
    });
    after(() => stopServer(server));

    test(`past ${cap} connections from one address the next is refused at once, and accepted again once they close`, { timeout: 60_000 }, async () => {
      const held: RawConnection[] = [];
      for (let i = 0; i < cap; i++) held.push(await open(server, slowMcpHead(server)));
      // Bun and Deno count requests in flight: give the held ones time to reach the handler.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      try {
        const started = Date.now();
        const refused = await open(server, head(server, 'GET', '/api/v1/health', ['Connection: close']));
        const closed = await closedWithin(refused, 3000);
        const took = Date.now() - started;
        assert.notEqual(closed, null, 'the connection past the cap is closed, not left hanging');
        assert.ok(took < 3000, `refused in ${took} ms`);
        assert.equal(statusOf(refused.received()), 429, refused.received());
        assert.match(refused.received(), /"code":"RATE_LIMITED"/);
        for (const connection of held) assert.equal(connection.isClosed(), false, 'the connections within the cap are untouched');
      } finally {
        for (const connection of held) connection.socket.destroy();
      }
      await Promise.all(held.map((connection) => connection.closed));
      // The server sees the closes a moment later.
      let status = 0;
      for (let attempt = 0; attempt < 20 && status !== 200; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const again = await open(server, head(server, 'GET', '/api/v1/health', ['Connection: close']));
        await closedWithin(again, 3000);
        status = statusOf(again.received());
      }
      assert.equal(status, 200, 'a new connection is accepted once the held ones closed');
    });
  });
}
