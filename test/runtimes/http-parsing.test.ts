/**
 * The same request gets the same answer on every runtime. Node, Bun and Deno parse HTTP
 * differently (the project's field notes); these raw requests are the ones where they differ, sent
 * byte for byte over a socket to `marketkit serve` on each runtime.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { runScript, startCliServer, type Runtime, type ServeInfo, type ServerProcess } from '../fixtures/cli.js';
import { freePort } from '../fixtures/haproxy.js';
import { parseMetrics, sampleOf } from '../fixtures/metrics-text.js';
import { as, validAsset } from '../fixtures/server.js';

interface RawAnswer {
  status: number;
  /** The header lines, names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** Sends `text` as it is and reads the answer until the server closes the connection. */
function raw(url: string, text: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let received = '';
    // Written, not ended: Node drops a half-closed connection whose answer is not ready yet.
    const socket = connect(Number(port), hostname, () => socket.write(text));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
      const end = received.indexOf('\r\n\r\n');
      const lines = received.slice(0, end).split('\r\n').slice(1);
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status, headers, body: received.slice(end + 4) });
    });
  });
}

const runtimes: Runtime[] = ['node', 'bun', 'deno'];
const servers = new Map<Runtime, ServerProcess>();

before(async () => {
  // Logged as JSON lines and measured, to see that every answer (a refused CONNECT too) is logged and counted.
  const observed = async () => ['--log-format', 'json', '--log-level', 'info', '--metrics-port', String(await freePort())];
  await Promise.all(runtimes.map(async (runtime) => servers.set(runtime, await startCliServer(['--memory', ...(await observed())], {}, runtime))));
});
after(async () => {
  await Promise.all([...servers.values()].map((server) => server.stop('SIGKILL')));
});

/** The request line and headers of a request to `server`, with its own Host unless told otherwise. */
function requestTo(server: ServerProcess, target: string, headers: string[] = [], method = 'GET', body = ''): string {
  const host = new URL(server.info.url).host;
  const lines = [`${method} ${target} HTTP/1.1`, ...(headers.some((h) => /^host:/i.test(h)) ? [] : [`Host: ${host}`]), ...headers, 'Connection: close'];
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

for (const runtime of runtimes) {
  describe(`on ${runtime}`, () => {
    const server = () => servers.get(runtime)!;

    test('a 20 KB header is refused with 431', async () => {
      const answer = await raw(server().info.url, requestTo(server(), '/api/v1/health', [`X-Padding: ${'a'.repeat(20_000)}`]));
      assert.equal(answer.status, 431);
    });

    test('an HTTP/1.1 request without Host is refused with 400', async () => {
      const answer = await raw(server().info.url, 'GET /api/v1/health HTTP/1.1\r\nConnection: close\r\n\r\n');
      assert.equal(answer.status, 400);
    });

    test('two Host lines are refused with 400, and so is a repeated Content-Length', async () => {
      const twoHosts = await raw(server().info.url, requestTo(server(), '/api/v1/health', ['Host: localhost', 'Host: evil.example']));
      assert.equal(twoHosts.status, 400);
      const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
      const length = `Content-Length: ${ping.length}`;
      const twoLengths = await raw(server().info.url, requestTo(server(), '/api/mcp', ['Content-Type: application/json', length], 'POST', ping).replace(length, `${length}\r\n${length}`));
      assert.equal(twoLengths.status, 400);
    });

    test('an absolute-form target is routed by its path, and the URLs issued carry the Host header, not its host', async () => {
      const { url, api } = server().info;
      const token = server().info.dev_seller.token!;
      const created = await as({ api }, token).post('/assets', validAsset());
      assert.equal(created.status, 201);
      const body = '{"filename":"pack.zip"}';
      const answer = await raw(
        url,
        requestTo(server(), `http://evil.example/api/v1/assets/${created.body.id}/upload-url`, [`Authorization: Bearer ${token}`, 'Content-Type: application/json'], 'POST', body),
      );
      assert.equal(answer.status, 200);
      const signed = JSON.parse(answer.body).signed_url as string;
      assert.ok(signed.startsWith(`${url}/api/v1/blobs/`), signed);
    });

    test('dot segments resolve the same way: /api/v1/%2e%2e/v1/health is health, a blob path climbing out is 404', async () => {
      const health = await raw(server().info.url, requestTo(server(), '/api/v1/%2e%2e/v1/health'));
      assert.equal(health.status, 200);
      const climbing = await raw(server().info.url, requestTo(server(), '/api/v1/blobs/%2e%2e/%2E%2E/x', [], 'PUT', 'x'));
      assert.equal(climbing.status, 404);
      assert.equal(JSON.parse(climbing.body).code, 'NOT_FOUND');
    });

    test('bad percent-encoding in a path is a 4xx with a code, never a 5xx', async () => {
      const token = server().info.dev_seller.token!;
      const answer = await raw(server().info.url, requestTo(server(), '/api/v1/assets/%E0%A4%A', [`Authorization: Bearer ${token}`]));
      assert.ok(answer.status >= 400 && answer.status < 500, `status ${answer.status}`);
      assert.match(JSON.parse(answer.body).code, /^[A-Z_]+$/);
    });

    test('on loopback, MCP refuses a Host that is not a loopback name with 403 (DNS rebinding)', async () => {
      const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
      const port = new URL(server().info.url).port;
      const evil = await raw(server().info.url, requestTo(server(), '/api/mcp', [`Host: evil.example:${port}`, 'Content-Type: application/json', 'Accept: application/json, text/event-stream'], 'POST', ping));
      assert.equal(evil.status, 403);
      const local = await raw(server().info.url, requestTo(server(), '/api/mcp', [`Host: localhost:${port}`, 'Content-Type: application/json', 'Accept: application/json, text/event-stream'], 'POST', ping));
      assert.equal(local.status, 200);
    });

    test('a CONNECT is 405 METHOD_NOT_ALLOWED with Allow, logged and counted like any answer, never a 500 or a dropped connection', async () => {
      const { url, metrics } = server().info as ServeInfo & { metrics: string };
      const host = new URL(url).host;
      const counted = async () => sampleOf(parseMetrics(await (await fetch(metrics)).text()).samples, 'http_server_request_duration_seconds_count', { http_request_method: '_OTHER', http_response_status_code: '405' }) ?? 0;
      const before = await counted();
      // A proxy's CONNECT names an authority, not a path: Bun could not make a URL of it (500 before), Node and Deno dropped it.
      const tunnel = await raw(url, `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\nX-Request-Id: connect-authority\r\nConnection: close\r\n\r\n`);
      const path = await raw(url, requestTo(server(), '/api/v1/profile', ['X-Request-Id: connect-path'], 'CONNECT'));
      for (const [form, answer] of [['an authority', tunnel], ['a path', path]] as const) {
        assert.equal(answer.status, 405, `CONNECT to ${form} (${JSON.stringify(answer.body)})`);
        assert.equal(JSON.parse(answer.body).code, 'METHOD_NOT_ALLOWED', form);
        assert.match(answer.headers.allow ?? '', /\bGET\b/, `CONNECT to ${form}: Allow names what is served`);
      }
      assert.equal(await counted(), before + 2, 'both counted in the request metrics');
      const logged = await logLines(server(), ['connect-authority', 'connect-path']);
      for (const line of logged) assert.deepEqual([line.method, line.status], ['CONNECT', 405], JSON.stringify(line));
    });
  });
}

/** The JSON request lines of `server`'s log with these request ids, once all have been written (the log trails the answer). */
async function logLines(server: ServerProcess, requestIds: string[]): Promise<Record<string, unknown>[]> {
  for (const deadline = Date.now() + 5000; ; await new Promise((resolve) => setTimeout(resolve, 25))) {
    const lines = server.stderr().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    const found = requestIds.map((id) => lines.find((line) => line.msg === 'request' && line.request_id === id));
    if (found.every(Boolean)) return found as Record<string, unknown>[];
    if (Date.now() > deadline) assert.fail(`no request line for ${requestIds.filter((_, i) => !found[i]).join(', ')} in the log:\n${server.stderr()}`);
  }
}

test('every runtime answers the bad percent-encoding and the climbing blob path exactly as Node does', async () => {
  const answers = await Promise.all(
    runtimes.map(async (runtime) => {
      const server = servers.get(runtime)!;
      const token = server.info.dev_seller.token!;
      const bad = await raw(server.info.url, requestTo(server, '/api/v1/assets/%E0%A4%A', [`Authorization: Bearer ${token}`]));
      const climbing = await raw(server.info.url, requestTo(server, '/api/v1/blobs/%2e%2e/%2E%2E/x', [], 'PUT', 'x'));
      return [bad.status, bad.body, climbing.status, climbing.body];
    }),
  );
  assert.deepEqual(answers[1], answers[0], 'Bun as Node');
  assert.deepEqual(answers[2], answers[0], 'Deno as Node');
});


test('with Deno.serve (marketkit/bindings/deno) a CONNECT to an authority is 405 too; one to a path is Deno\'s own 400, before any handler', async (t) => {
  // The binding an embedder mounts on Deno.serve, not marketkit serve's node:http: the server of the binding tests.
  const [command, ...args] = runScript('deno', new URL('../bindings/on-runtime/limited-server.ts', import.meta.url).pathname);
  const child = spawn(command!, args, { env: { ...process.env, MARKETKIT_TEST_BINDING: 'deno' }, stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const { url } = JSON.parse(await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the Deno.serve server exited (${code})`)));
    createInterface({ input: child.stdout! }).once('line', resolve);
  })) as { url: string };
  const host = new URL(url).host;
  const tunnel = await raw(url, `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  assert.equal(tunnel.status, 405, tunnel.body);
  assert.equal(JSON.parse(tunnel.body).code, 'METHOD_NOT_ALLOWED');
  const path = await raw(url, `CONNECT /api/v1/profile HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  assert.equal(path.status, 400, 'Deno answers it before the handler (docs/embedding/deno.md)');
});
