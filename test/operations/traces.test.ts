/**
 * Traces as an application that registers the OpenTelemetry SDK sees them (docs/operations.md,
 * "Traces"): createMarketplace({ tracing: await openTelemetryTracing() }) behind the node binding,
 * the SDK's BasicTracerProvider with an in-memory exporter and the AsyncLocalStorage context
 * manager registered in this process. One REST request, one MCP call and one webhook delivery:
 * server spans by route template continuing the caller's traceparent (the header; for MCP, the
 * request's `_meta`), storage, blob and limiter spans under them, the delivery span linked to the
 * request that queued its event, and the trace id in the access log. And `marketkit serve` with
 * an SDK registered by an --import setup (test/fixtures/otel-setup.ts), as docs/operations.md says.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { context, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { nodeWebhookSender, openTelemetryTracing } from '../../bindings/node/index.js';
import type { AnsweredRequest } from '../../core/pipeline/frame.js';
import { as, call, startServer, validAsset, type TestServer } from '../fixtures/server.js';
import { modernParams, rpc } from '../fixtures/mcp.js';
import { createEndpoint } from '../fixtures/webhooks.js';
import { startReceiver, type Receiver } from '../fixtures/webhook-receiver.js';
import { startCliServer, tempDir } from '../fixtures/cli.js';
import type { SpanLine } from '../fixtures/otel-setup.js';

const exporter = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager();
let server: TestServer;
let receiver: Receiver;
const answered: AnsweredRequest[] = [];

before(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(contextManager.enable());
  receiver = await startReceiver();
  const local = { allowHttp: true, allowPrivateAddresses: true };
  server = await startServer({ tracing: await openTelemetryTracing(), webhooks: { ...local, sender: nodeWebhookSender(local) }, onRequest: (entry) => answered.push(entry) });
});
after(async () => {
  await server?.close();
  await receiver?.close();
  trace.disable();
  context.disable();
});

/** A caller's traceparent: a trace and span of its own, sampled. */
function callerTrace(): { traceId: string; spanId: string; traceparent: string } {
  const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

const spans = () => exporter.getFinishedSpans();
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const childrenOf = (parent: ReadableSpan) => spans().filter((span) => parentOf(span) === parent.spanContext().spanId && span.spanContext().traceId === parent.spanContext().traceId);

/** The one server span of the trace `traceId` named `name`. */
function serverSpan(traceId: string, name: string): ReadableSpan {
  const found = spans().filter((span) => span.spanContext().traceId === traceId && span.kind === SpanKind.SERVER && span.name === name);
  assert.equal(found.length, 1, `one server span ${name} in trace ${traceId}; spans: ${spans().map((span) => span.name).join(', ')}`);
  return found[0]!;
}

test('a REST request is a server span named by its route template, continuing the caller traceparent, with its port calls as children', async () => {
  const seller = as(server, server.seller.token);
  const caller = callerTrace();
  const created = await call(server, 'POST', '/assets', { token: server.seller.token, body: validAsset(), headers: { traceparent: caller.traceparent } });
  assert.equal(created.status, 201);
  const id: string = created.body.id;

  const post = serverSpan(caller.traceId, 'POST /api/v1/assets');
  assert.equal(parentOf(post), caller.spanId, 'the span is the child of the caller span');
  assert.equal(post.attributes['http.request.method'], 'POST');
  assert.equal(post.attributes['http.route'], '/api/v1/assets');
  assert.equal(post.attributes['http.response.status_code'], 201);
  assert.equal(post.attributes['url.path'], '/api/v1/assets');
  assert.equal(post.attributes['marketkit.surface'], 'rest');
  assert.equal(post.attributes['marketkit.request_id'], created.headers.get('x-request-id'));
  assert.equal(post.status.code, SpanStatusCode.UNSET);
  const postChildren = childrenOf(post).map((span) => span.name);
  assert.ok(postChildren.includes('storage createAsset'), `storage createAsset under the request: ${postChildren.join(', ')}`);
  assert.ok(postChildren.includes('rate_limiter take'), `the limiter under the request: ${postChildren.join(', ')}`);
  const storage = spans().find((span) => span.name === 'storage createAsset' && parentOf(span) === post.spanContext().spanId)!;
  assert.equal(storage.kind, SpanKind.INTERNAL);
  assert.deepEqual([storage.attributes['marketkit.port'], storage.attributes['marketkit.operation']], ['storage', 'createAsset']);

  // The id is in the path, never in the name; a 404 is not an error of the server's.
  const lookup = callerTrace();
  assert.equal((await call(server, 'GET', `/assets/${id}`, { token: server.seller.token, headers: { traceparent: lookup.traceparent } })).status, 200);
  const get = serverSpan(lookup.traceId, 'GET /api/v1/assets/{id}');
  assert.equal(get.attributes['url.path'], `/api/v1/assets/${id}`);
  const missing = callerTrace();
  assert.equal((await call(server, 'GET', '/assets/00000000-0000-4000-8000-000000000000', { token: server.seller.token, headers: { traceparent: missing.traceparent } })).status, 404);
  assert.equal(serverSpan(missing.traceId, 'GET /api/v1/assets/{id}').status.code, SpanStatusCode.UNSET);

  // A blob write is a span under the signed-URL PUT.
  const issued = await seller.post(`/assets/${id}/upload-url`, { filename: 'pack.zip' });
  const upload = callerTrace();
  const put = await fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip', traceparent: upload.traceparent }, body: new TextEncoder().encode('PK\u0003\u0004 traced bytes') });
  assert.equal(put.status, 200, await put.text());
  const putSpan = serverSpan(upload.traceId, 'PUT /api/v1/blobs/{path}');
  assert.equal(putSpan.attributes['marketkit.surface'], 'blobs');
  assert.ok(!String(putSpan.attributes['url.path']).includes('signature'), 'the query (with the signature) is not in the span');
  const blobSpans = childrenOf(putSpan).filter((span) => span.attributes['marketkit.port'] === 'blobs');
  assert.ok(blobSpans.length > 0, `a blob call under the PUT: ${childrenOf(putSpan).map((span) => span.name).join(', ')}`);

  // Without a traceparent: a new trace, and the access log names it.
  const before = answered.length;
  assert.equal((await seller.get(`/assets/${id}`)).status, 200);
  const entry = answered.slice(before).find((line) => line.route === '/api/v1/assets/{id}')!;
  assert.match(entry.traceId ?? '', /^[0-9a-f]{32}$/);
  const own = serverSpan(entry.traceId!, 'GET /api/v1/assets/{id}');
  assert.equal(parentOf(own), undefined, 'a request without traceparent starts its own trace');
});

test('an MCP call continues the trace named in params._meta.traceparent (2026-07-28), before the HTTP header', async () => {
  const header = callerTrace();
  const meta = callerTrace();
  const params = modernParams({ name: 'list_my_assets', arguments: {} });
  (params._meta as Record<string, unknown>).traceparent = meta.traceparent;
  const answer = await rpc(server, 'tools/call', params, { token: server.seller.token, headers: { traceparent: header.traceparent } });
  assert.equal(answer.status, 200);
  assert.equal(answer.body.result.isError, undefined, JSON.stringify(answer.body));
  const span = serverSpan(meta.traceId, 'POST /api/mcp');
  assert.equal(parentOf(span), meta.spanId);
  assert.equal(span.attributes['marketkit.surface'], 'mcp');
  assert.equal(span.attributes['mcp.method.name'], 'tools/call');
  assert.equal(span.attributes['gen_ai.tool.name'], 'list_my_assets');
  assert.equal(span.attributes['mcp.protocol.version'], '2026-07-28');
  assert.ok(childrenOf(span).some((child) => child.attributes['marketkit.port'] === 'storage'), `storage under the MCP call: ${childrenOf(span).map((child) => child.name).join(', ')}`);
  assert.equal(spans().filter((s) => s.spanContext().traceId === header.traceId).length, 0, 'the header trace is not used when _meta names one');

  // A legacy request without _meta: the header.
  const legacy = callerTrace();
  assert.equal((await rpc(server, 'tools/list', undefined, { token: server.seller.token, headers: { traceparent: legacy.traceparent } })).status, 200);
  assert.equal(parentOf(serverSpan(legacy.traceId, 'POST /api/mcp')), legacy.spanId);
});

test('a webhook delivery is a span of its own, linked to the request that queued its event, sending its traceparent', async () => {
  const endpoint = await createEndpoint(server, server.seller.token, { url: `${receiver.url}/hook` });
  const caller = callerTrace();
  const queued = await call(server, 'POST', `/webhooks/${endpoint.id}/test`, { token: server.seller.token, headers: { traceparent: caller.traceparent } });
  assert.equal(queued.status, 202, JSON.stringify(queued.body));
  const request = serverSpan(caller.traceId, 'POST /api/v1/webhooks/{id}/test');

  const pass = await server.marketplace.webhooks.deliverDue();
  assert.equal(pass.succeeded, 1);
  const [delivered] = await receiver.waitFor(1);
  const delivery = spans().find((span) => span.name === 'webhook deliver' && span.attributes['marketkit.webhook.delivery_id'] === queued.body.id);
  assert.ok(delivery, `a delivery span: ${spans().map((span) => span.name).join(', ')}`);
  assert.equal(delivery.kind, SpanKind.CLIENT);
  assert.equal(parentOf(delivery), undefined, 'a trace of its own');
  assert.notEqual(delivery.spanContext().traceId, caller.traceId);
  assert.equal(delivery.links.length, 1);
  assert.deepEqual([delivery.links[0]!.context.traceId, delivery.links[0]!.context.spanId], [caller.traceId, request.spanContext().spanId], 'linked to the request span');
  assert.equal(delivery.attributes['http.request.method'], 'POST');
  assert.equal(delivery.attributes['http.response.status_code'], 200);
  assert.equal(delivery.attributes['marketkit.webhook.event_type'], 'webhook.test');
  assert.equal(delivery.attributes['marketkit.webhook.outcome'], 'succeeded');
  assert.equal(delivery.attributes['server.address'], '127.0.0.1');
  assert.ok(childrenOf(delivery).some((span) => span.name === 'storage finishWebhookAttempt'), 'the attempt is recorded under the delivery span');
  assert.equal(delivered!.headers.traceparent, `00-${delivery.spanContext().traceId}-${delivery.spanContext().spanId}-01`, 'the receiver can continue the delivery trace');

  // The worker poll with nothing due makes no spans: storage calls outside a span are not traced.
  const count = spans().length;
  assert.equal((await server.marketplace.webhooks.deliverDue()).attempted, 0);
  assert.equal(spans().length, count);
});

// Last: it takes the SDK away, as an application that never registers one runs.
test('with no SDK registered no span is made, and the log carries the caller trace id', async () => {
  trace.disable();
  context.disable();
  const count = spans().length;
  const caller = callerTrace();
  const before = answered.length;
  assert.equal((await call(server, 'GET', '/me', { token: server.seller.token, headers: { traceparent: caller.traceparent } })).status, 200);
  assert.equal(spans().length, count, 'nothing recorded');
  assert.equal(answered.slice(before).find((entry) => entry.route === '/api/v1/me')?.traceId, caller.traceId);
});

test('marketkit serve traces through the SDK an --import setup registers, and logs the span trace id', async (t) => {
  const dir = tempDir(t, 'marketkit-spans-');
  const spansFile = join(dir, 'spans.jsonl');
  const setup = new URL('../fixtures/otel-setup.ts', import.meta.url).pathname;
  const cli = await startCliServer(['--memory', '--log-format', 'json', '--log-level', 'info'], { NODE_OPTIONS: `--import tsx --import ${setup}`, MARKETKIT_TEST_SPANS: spansFile });
  t.after(() => cli.stop());
  const caller = callerTrace();
  const answer = await fetch(`${cli.info.api}/me`, { headers: { authorization: `Bearer ${cli.info.dev_seller.token}`, traceparent: caller.traceparent } });
  assert.equal(answer.status, 200, `${await answer.text()} ${cli.stderr()}`);
  const lines = (): SpanLine[] => (existsSync(spansFile) ? readFileSync(spansFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as SpanLine) : []);
  const request = lines().find((span) => span.traceId === caller.traceId && span.name === 'GET /api/v1/me');
  assert.ok(request, `the request span in the exported spans: ${lines().map((span) => span.name).join(', ')}`);
  assert.equal(request.parentSpanId, caller.spanId);
  assert.equal(request.attributes['http.response.status_code'], 200);
  await cli.stop();
  const access = cli.stderr().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line)).find((line) => line.route === '/api/v1/me');
  assert.equal(access?.trace_id, caller.traceId, cli.stderr());
});
