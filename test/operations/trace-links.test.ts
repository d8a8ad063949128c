/**
 * The link from a webhook delivery's span to the request that caused its event holds across
 * instances (docs/operations.md, "Traces"): the event keeps the request's traceparent in storage,
 * written in the change's transaction, so the instance that delivers needs nothing of the one that
 * served. Two marketplaces on one PostgreSQL database (the request on A, whose worker never runs;
 * the delivery and a redelivery by B), and a SQLite file delivered after a restart. The SDK's
 * BasicTracerProvider with an in-memory exporter, registered in this process for both.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { context, trace, SpanKind } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { nodeWebhookSender, openTelemetryTracing } from '../../bindings/node/index.js';
import { postgresStorage } from '../../adapters/postgres/index.js';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import type { StoragePort } from '../../core/ports/storage.js';
import { call, startServer, validAsset, type TestServer } from '../fixtures/server.js';
import { sharedCluster, stopStores, withCleanup } from '../fixtures/stores.js';
import { createEndpoint } from '../fixtures/webhooks.js';
import { startReceiver, type Receiver } from '../fixtures/webhook-receiver.js';
import { needs } from '../fixtures/parts.js';

const { test, before } = needs('postgresql');
const exporter = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager();
const local = { allowHttp: true, allowPrivateAddresses: true };
let receiver: Receiver;

before(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(contextManager.enable());
  receiver = await startReceiver();
});
after(async () => {
  await receiver?.close();
  await stopStores();
  trace.disable();
  context.disable();
});

const spans = () => exporter.getFinishedSpans();

/** A marketplace on `storage`, traced; it delivers only when given a sender (and then only when the test asks). */
async function instance(storage: StoragePort & { close(): Promise<void> }, options: { delivers: boolean; clock?: TestServer['clock'] }): Promise<TestServer> {
  const webhooks = options.delivers ? { ...local, sender: nodeWebhookSender(local) } : local;
  return withCleanup(await startServer({ storage, tracing: await openTelemetryTracing(), webhooks, ...(options.clock ? { clock: options.clock } : {}) }), () => storage.close());
}

/** A listing created on `server` under a caller trace of its own; the server span of that request. */
async function createdUnderTrace(server: TestServer): Promise<ReadableSpan> {
  const hex = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('hex');
  const traceId = hex(16);
  const created = await call(server, 'POST', '/assets', { token: server.seller.token, body: validAsset(), headers: { traceparent: `00-${traceId}-${hex(8)}-01` } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const found = spans().filter((span) => span.spanContext().traceId === traceId && span.kind === SpanKind.SERVER);
  assert.equal(found.length, 1, `one server span in the caller's trace: ${spans().map((span) => span.name).join(', ')}`);
  return found[0]!;
}

/** The delivery spans of `deliveryId`, oldest first. */
const deliverySpans = (deliveryId: string) => spans().filter((span) => span.name === 'webhook deliver' && span.attributes['marketkit.webhook.delivery_id'] === deliveryId);

function assertLinked(delivery: ReadableSpan | undefined, request: ReadableSpan) {
  assert.ok(delivery, `a delivery span: ${spans().map((span) => span.name).join(', ')}`);
  assert.notEqual(delivery.spanContext().traceId, request.spanContext().traceId, 'a trace of its own');
  assert.deepEqual(
    delivery.links.map((link) => [link.context.traceId, link.context.spanId]),
    [[request.spanContext().traceId, request.spanContext().spanId]],
    'linked to the request span that created the event',
  );
}

test('on PostgreSQL, the delivery instance B makes of an event instance A wrote is linked to A\'s request span, and so is a redelivery', async (t) => {
  const url = await (await sharedCluster()).createDatabase();
  const a = await instance(await postgresStorage({ url, poolSize: 2 }), { delivers: false });
  t.after(() => a.close());
  const b = await instance(await postgresStorage({ url, poolSize: 2 }), { delivers: true, clock: a.clock });
  t.after(() => b.close());
  const endpoint = await createEndpoint(a, a.seller.token, { url: `${receiver.url}/hook` });
  const request = await createdUnderTrace(a);

  const pass = await b.marketplace.webhooks.deliverDue();
  assert.equal(pass.succeeded, 1, JSON.stringify(pass));
  const delivered = receiver.received.at(-1);
  const listed = await call(b, 'GET', `/webhooks/${endpoint.id}/deliveries`, { token: a.seller.token });
  const first = (listed.body.data as { id: string; event_type: string }[]).find((d) => d.event_type === 'asset.created')!;
  const [span] = deliverySpans(first.id);
  assertLinked(span, request);
  // The POST carries the delivery's own traceparent; the signed body carries none.
  assert.equal(delivered!.headers.traceparent, `00-${span!.spanContext().traceId}-${span!.spanContext().spanId}-01`);
  assert.ok(!delivered!.body.includes('traceparent') && !delivered!.body.includes(request.spanContext().spanId), 'nothing of the trace in the signed body');

  // A redelivery, asked of B in a request of its own, still links to the request that caused the event.
  const again = await call(b, 'POST', `/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`, { token: a.seller.token });
  assert.equal(again.status, 202, JSON.stringify(again.body));
  assert.equal((await b.marketplace.webhooks.deliverDue()).succeeded, 1);
  assertLinked(deliverySpans((again.body as { id: string }).id)[0], request);
});

test('on SQLite, a delivery made after a restart is linked to the request span served before it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-trace-links-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'marketkit.db');
  const before = await instance(await sqliteStorage({ path }), { delivers: false });
  await createEndpoint(before, before.seller.token, { url: `${receiver.url}/hook` });
  const request = await createdUnderTrace(before);
  await before.close();

  const after = await instance(await sqliteStorage({ path }), { delivers: true, clock: before.clock });
  t.after(() => after.close());
  const delivered = spans().length;
  assert.equal((await after.marketplace.webhooks.deliverDue()).succeeded, 1);
  const made = spans().slice(delivered).filter((span) => span.name === 'webhook deliver');
  assert.equal(made.length, 1);
  assertLinked(made[0], request);
});
