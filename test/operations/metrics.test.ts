/**
 * marketplace.metrics() as an embedding application reads it, after real HTTP requests (REST,
 * MCP, the signed-URL PUT, refusals): the OpenTelemetry HTTP names and labels, route templates and
 * never a raw path or id, tool calls by outcome, failed authentications, rate-limit refusals, the
 * read cache, webhook deliveries and their backlog; the text passes `promtool check metrics`.
 * And `marketkit serve --metrics-port`: /metrics on its own listener, never on the public port.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { as, call, startServer, uploadFile, validAsset, type TestServer } from '../fixtures/server.js';
import { callTool } from '../fixtures/mcp.js';
import { parseMetrics, sampleOf } from '../fixtures/metrics-text.js';
import { runCli, startCliServer } from '../fixtures/cli.js';
import { freePort } from '../fixtures/haproxy.js';
import { needs, partPath } from '../fixtures/parts.js';
import { defaultRateLimits, memoryRateLimiter, StorageUnavailableError, type RateLimiterPort } from '../../core/index.js';

const prometheus = needs('prometheus');

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server?.close());

const duration = 'http_server_request_duration_seconds';

test('requests are counted by method, route template, status and surface; ids and tokens never appear', async () => {
  const seller = as(server, server.seller.token);
  const created = await seller.post('/assets', validAsset());
  assert.equal(created.status, 201);
  const id: string = created.body.id;
  for (let i = 0; i < 5; i++) assert.equal((await seller.get(`/assets/${id}`)).status, 200);
  assert.equal((await seller.get('/assets/00000000-0000-4000-8000-000000000000')).status, 404);
  assert.equal((await call(server, 'GET', '/no/such/path/for/metrics', { token: server.seller.token })).status, 404);
  assert.equal((await as(server, 'mk_bad_token').get('/me')).status, 401);
  await uploadFile(server, server.seller.token, id, new TextEncoder().encode('PK\u0003\u0004 metrics bytes'));
  const listed = await callTool(server, server.seller.token, 'list_my_assets', {});
  assert.equal(listed.status, 200);
  const refused = await callTool(server, server.seller.token, 'get_asset', { id: '00000000-0000-4000-8000-000000000000' });
  assert.equal(refused.body.result.isError, true);
  assert.equal((await callTool(server, undefined, 'list_my_assets', {})).status, 401);
  assert.equal((await fetch(`${server.url}/readyz`)).status, 200);

  const text = await server.marketplace.metrics();
  const { samples, types } = parseMetrics(text);
  const count = (labels: Record<string, string>) => sampleOf(samples, `${duration}_count`, labels);
  assert.equal(types.get(duration), 'histogram');
  assert.equal(count({ http_request_method: 'GET', http_route: '/api/v1/assets/{id}', http_response_status_code: '200', surface: 'rest' }), 5);
  assert.equal(count({ http_request_method: 'GET', http_route: '/api/v1/assets/{id}', http_response_status_code: '404', surface: 'rest' }), 1);
  assert.equal(count({ http_request_method: 'POST', http_route: '/api/v1/assets', http_response_status_code: '201', surface: 'rest' }), 1);
  assert.equal(count({ http_request_method: 'GET', http_route: '', http_response_status_code: '404', surface: 'rest' }), 1, 'a path no route serves has no route');
  assert.equal(count({ http_request_method: 'PUT', http_route: '/api/v1/blobs/{path}', http_response_status_code: '200', surface: 'blobs' }), 1);
  assert.equal(count({ http_request_method: 'GET', http_route: '/readyz', http_response_status_code: '200', surface: 'rest' }), 1);
  assert.equal(count({ http_request_method: 'POST', http_route: '/api/mcp', http_response_status_code: '200', surface: 'mcp' }), 2);
  // The advised buckets, cumulative, ending at +Inf with the count.
  const buckets = samples.filter((s) => s.name === `${duration}_bucket` && s.labels.http_route === '/api/v1/assets/{id}' && s.labels.http_response_status_code === '200');
  assert.deepEqual(buckets.map((s) => s.labels.le), ['0.005', '0.01', '0.025', '0.05', '0.075', '0.1', '0.25', '0.5', '0.75', '1', '2.5', '5', '7.5', '10', '+Inf']);
  assert.equal(buckets.at(-1)!.value, 5);
  assert.ok(buckets.every((s, i) => i === 0 || s.value >= buckets[i - 1]!.value));

  assert.equal(sampleOf(samples, 'marketkit_mcp_tool_calls_total', { tool: 'list_my_assets', outcome: 'ok' }), 1);
  assert.equal(sampleOf(samples, 'marketkit_mcp_tool_calls_total', { tool: 'get_asset', outcome: 'refused' }), 1);
  assert.equal(sampleOf(samples, 'marketkit_mcp_tool_calls_total', { tool: 'list_my_assets', outcome: 'error' }), 1, 'the 401 is a JSON-RPC error');
  assert.ok(sampleOf(samples, 'marketkit_auth_failures_total')! >= 1);
  assert.ok(sampleOf(samples, 'marketkit_read_cache_hits_total', { area: 'tokens' })! > 0, 'the seller token was known after its first request');
  assert.ok(sampleOf(samples, 'marketkit_upload_received_bytes_total')! > 0);
  assert.equal(sampleOf(samples, 'marketkit_uploads_in_progress'), 0);
  assert.equal(sampleOf(samples, 'http_server_active_requests', { surface: 'rest' }), 0);
  assert.equal(sampleOf(samples, 'marketkit_rate_limit_refusals_total', { class: 'read' }), 0);
  assert.equal(sampleOf(samples, 'marketkit_webhook_backlog'), 0);

  // Bounded labels: no listing id, token or raw path anywhere in the text.
  for (const secret of [id, server.seller.token, 'mk_bad_token', '/no/such/path', '00000000-0000-4000-8000-000000000000']) assert.ok(!text.includes(secret), `metrics do not show ${secret}`);
});

test('promtool check metrics finds nothing wrong with the text', { skip: prometheus.skip }, async () => {
  const promtool = join(partPath('prometheus'), 'promtool');
  const text = await server.marketplace.metrics();
  const checked = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
});

test('rate-limit refusals are counted by class, and metrics: false counts nothing', async () => {
  const limited = await startServer({ rateLimits: { read: { limit: 2, windowSeconds: 60 } } });
  try {
    const client = as(limited, limited.seller.token);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await client.get('/me')).status);
    assert.deepEqual(statuses, [200, 200, 429, 429]);
    const { samples } = parseMetrics(await limited.marketplace.metrics());
    assert.equal(sampleOf(samples, 'marketkit_rate_limit_refusals_total', { class: 'read' }), 2);
    assert.equal(sampleOf(samples, `${duration}_count`, { http_route: '/api/v1/me', http_response_status_code: '429' }), 2);
  } finally {
    await limited.close();
  }
  const off = await startServer({ metrics: false });
  try {
    assert.equal((await as(off, off.seller.token).get('/me')).status, 200);
    assert.equal(await off.marketplace.metrics(), '');
  } finally {
    await off.close();
  }
});

test('a rate limiter that cannot answer is counted as a limiter error, not a storage error', async () => {
  const limiter = memoryRateLimiter(defaultRateLimits);
  let down = false;
  const failing: RateLimiterPort = {
    take: (key, limitClass, nowMs) => (down ? Promise.reject(new StorageUnavailableError('rate limiter unreachable')) : limiter.take(key, limitClass, nowMs)),
    peek: (key, limitClass, nowMs) => limiter.peek(key, limitClass, nowMs),
  };
  // onError hears of the outage (as of any store that cannot be reached), not the fixture's 500 check.
  const heard: unknown[] = [];
  const limited = await startServer({ rateLimiter: failing, onError: (error) => heard.push(error) });
  try {
    const client = as(limited, limited.seller.token);
    assert.equal((await client.get('/me')).status, 200);
    down = true;
    assert.equal((await client.get('/me')).status, 503);
    const { samples } = parseMetrics(await limited.marketplace.metrics());
    assert.equal(sampleOf(samples, 'marketkit_rate_limiter_errors_total'), 1);
    assert.equal(sampleOf(samples, 'marketkit_storage_errors_total'), 0);
    assert.equal(heard.length, 1);
  } finally {
    await limited.close();
  }
});

test('serve --metrics-port: /metrics on its own listener, not on the public port; the same port as --port is refused', async (t) => {
  const metricsPort = await freePort();
  const served = await startCliServer(['--memory', '--metrics-port', String(metricsPort)]);
  t.after(() => served.stop());
  const info = JSON.parse(served.stdout().split('\n')[0]!);
  assert.equal(info.metrics, `http://127.0.0.1:${metricsPort}/metrics`);
  assert.equal((await fetch(`${served.info.url}/api/v1/health`)).status, 200);
  const scraped = await fetch(info.metrics);
  assert.equal(scraped.status, 200);
  assert.equal(scraped.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const { samples } = parseMetrics(await scraped.text());
  assert.equal(sampleOf(samples, `${duration}_count`, { http_route: '/api/v1/health', http_response_status_code: '200' }), 1);
  assert.equal((await fetch(`${served.info.url}/metrics`)).status, 404, 'the public port does not serve them');
  assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status, 404);
  const port = await freePort();
  const refused = await runCli(['serve', '--memory', '--port', String(port), '--metrics-port', String(port)]);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /--metrics-port \d+ is the public port/);
});
