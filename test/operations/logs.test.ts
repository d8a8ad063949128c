/**
 * `marketkit serve --log-format json --log-level info` under a concurrent load: every stderr line
 * parses as one JSON object, one access line per request with the route template, status,
 * duration, request id, client address and the trace id of a `traceparent`; and no secret the run
 * handled (the dev token, a refused token, the service key, the signing secret, the session key, a
 * webhook secret, a signed URL's signature) appears in any log line or in the metrics.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createErrorLog } from '../../cli/serve-log.js';
import { keys, startCliServer } from '../fixtures/cli.js';
import { freePort } from '../fixtures/haproxy.js';

async function send(url: string, init: RequestInit & { expect?: number } = {}): Promise<any> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (response.status !== (init.expect ?? (response.ok ? response.status : 200))) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${text}`);
  return text && (response.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
}

test('JSON log lines parse under load, carry the access fields, and no secret reaches a log line or a metric', async (t) => {
  const secrets = await keys();
  const serviceKey = `svc-${'k'.repeat(40)}`;
  const metricsPort = await freePort();
  const server = await startCliServer(['--memory', '--log-format', 'json', '--log-level', 'info', '--metrics-port', String(metricsPort), '--webhooks-allow-local', '--no-webhook-delivery', '--failed-auth-limit', '1000'], {
    ...secrets,
    MARKETKIT_SERVICE_KEY: serviceKey,
  });
  t.after(() => server.stop('SIGKILL'));
  const api = `${server.info.url}/api/v1`;
  const token = server.info.dev_seller.token!;
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const wrongToken = `mk_${'x'.repeat(40)}`;

  const asset = await send(`${api}/assets`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'Logged', slug: 'logged' }), expect: 201 });
  const issued = await send(`${api}/assets/${asset.id}/upload-url`, { method: 'POST', headers: auth, body: JSON.stringify({ filename: 'pack.zip' }) });
  const signature = new URL(issued.signed_url).searchParams.get('signature')!;
  await send(issued.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: 'PK\u0003\u0004 logged bytes' });
  const forged = new URL(issued.signed_url);
  forged.searchParams.set('signature', `${signature.slice(0, -4)}AAAA`);
  await send(forged.href, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: 'x', expect: 403 });
  const endpoint = await send(`${api}/webhooks`, { method: 'POST', headers: auth, body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', event_types: ['*'] }), expect: 201 });
  await send(`${server.info.url}/api/admin/openapi.json`, { headers: { authorization: `Bearer ${serviceKey}` } });
  await send(`${server.info.url}/api/admin/openapi.json`, { headers: { authorization: `Bearer ${serviceKey}x` }, expect: 401 });

  // The load: 8 workers, 200 requests, some with a traceparent, some refused.
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  let sent = 0;
  const expected = { ok: 0, refused: 0 };
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (sent < 200) {
        const n = sent++;
        if (n % 10 === 0) {
          await send(`${api}/me`, { headers: { authorization: `Bearer ${wrongToken}` }, expect: 401 });
          expected.refused++;
        } else {
          await send(`${api}/assets/${asset.id}`, { headers: { ...auth, ...(n % 3 === 0 ? { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } : {}) } });
          expected.ok++;
        }
      }
    }),
  );
  const metricsText = await send(`http://127.0.0.1:${metricsPort}/metrics`);
  await server.stop('SIGINT');

  const lines = server.stderr().split('\n').filter((line) => line !== '');
  const parsed = lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, any>;
    } catch {
      throw new Error(`not a JSON line: ${line}`);
    }
  });
  for (const entry of parsed) {
    assert.ok(typeof entry.time === 'string' && !Number.isNaN(Date.parse(entry.time)), JSON.stringify(entry));
    assert.ok(['error', 'warn', 'info', 'debug'].includes(entry.level) && typeof entry.msg === 'string', JSON.stringify(entry));
  }
  const requests = parsed.filter((entry) => entry.msg === 'request');
  const reads = requests.filter((entry) => entry.route === '/api/v1/assets/{id}' && entry.status === 200);
  assert.equal(reads.length, expected.ok);
  assert.equal(requests.filter((entry) => entry.route === '/api/v1/me' && entry.status === 401).length, expected.refused);
  for (const entry of reads) {
    assert.equal(entry.method, 'GET');
    assert.equal(entry.surface, 'rest');
    assert.equal(typeof entry.duration_ms, 'number');
    assert.match(entry.request_id, /^[0-9a-f-]{36}$/);
    assert.equal(entry.client_address, '127.0.0.1');
  }
  assert.equal(reads.filter((entry) => entry.trace_id === traceId).length, Array.from({ length: 200 }, (_, n) => n).filter((n) => n % 10 !== 0 && n % 3 === 0).length);
  assert.ok(requests.some((entry) => entry.route === '/api/v1/blobs/{path}' && entry.surface === 'blobs' && entry.status === 403));
  assert.ok(!lines.some((line) => line.includes(asset.id)), 'no listing id: routes are templates');

  const sessionKey = JSON.parse(secrets.MARKETKIT_SESSION_KEY).d as string;
  const named = { token, wrongToken, serviceKey, signingSecret: secrets.MARKETKIT_SIGNING_SECRET, sessionKey, webhookSecret: endpoint.secret as string, signature };
  for (const [name, secret] of Object.entries(named)) {
    assert.ok(secret.length >= 16, `${name} is a real secret`);
    assert.ok(!server.stderr().includes(secret), `the log shows no ${name}`);
    assert.ok(!server.stdout().slice(server.stdout().indexOf('\n') + 1).includes(secret), `nothing after the start line shows the ${name}`);
    assert.ok(!metricsText.includes(secret), `the metrics show no ${name}`);
  }
});

test('an error line in JSON carries the request id, the error and its cause', () => {
  const lines: string[] = [];
  const log = createErrorLog({ write: (line) => lines.push(line), format: 'json' });
  const cause = new Error('connect ECONNREFUSED');
  log.onError(new Error('the storage cannot be reached', { cause }), { method: 'GET', path: '/api/v1/me', requestId: 'req-1', clientAddress: '10.0.0.9' });
  const entry = JSON.parse(lines[0]!);
  assert.equal(entry.level, 'error');
  assert.equal(entry.request_id, 'req-1');
  assert.equal(entry.client_address, '10.0.0.9');
  assert.equal(entry.error, 'Error: the storage cannot be reached');
  assert.equal(entry.cause, 'Error: connect ECONNREFUSED');
  assert.ok(Array.isArray(entry.stack) && entry.stack.length > 0);
  assert.equal(lines.length, 1, 'one line, the stack inside it');
});

test('the JSON log takes a trace id only from a valid traceparent, as the tracer reads it', async (t) => {
  const server = await startCliServer(['--memory', '--log-format', 'json', '--log-level', 'info']);
  t.after(() => server.stop('SIGKILL'));
  const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
  const sent: [string, string | undefined][] = [
    ['version ff', `ff-${trace}-00f067aa0ba902b7-01`],
    ['an all-zero span id', `00-${trace}-0000000000000000-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`],
    ['version 00 with more after the flags', `00-${trace}-00f067aa0ba902b7-01-extra`],
    ['valid', `00-${trace}-00f067aa0ba902b7-01`],
  ];
  for (const [name, traceparent] of sent) {
    await send(`${server.info.url}/api/v1/health`, { headers: { traceparent: traceparent!, 'x-request-id': name.replace(/ /g, '-') } });
  }
  await server.stop('SIGINT');
  const requests = server.stderr().split('\n').filter(Boolean).map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request');
  const traced = Object.fromEntries(requests.map((entry) => [entry.request_id, entry.trace_id ?? null]));
  assert.deepEqual(traced, {
    'version-ff': null,
    'an-all-zero-span-id': null,
    'an-all-zero-trace-id': null,
    'version-00-with-more-after-the-flags': null,
    valid: trace,
  });
});
