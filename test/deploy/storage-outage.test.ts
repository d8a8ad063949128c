/**
 * A storage outage over HTTP: a marketplace on a real, throwaway PostgreSQL whose server is stopped
 * mid-test. While it is down every surface answers 503 SERVICE_UNAVAILABLE with Retry-After (REST,
 * MCP as a JSON-RPC error with the table's code, admin), /health says degraded, nothing answers 500
 * or shows the driver's message, and onError hears of it once; when the server is back, the same
 * process answers 200 again without a restart.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { postgresStorage, postgresStudio, type PostgresStorage, type PostgresStudio } from '../../adapters/postgres/index.js';
import { errorCatalogue, isStorageUnavailable, StorageUnavailableError } from '../../core/errors.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { as, startServer, type TestServer } from '../fixtures/server.js';
import { callTool } from '../fixtures/mcp.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('postgresql');

const serviceKey = 'k'.repeat(40);

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

test('StorageUnavailableError: recognised by class and by code; the PostgreSQL adapter throws a subclass', async () => {
  assert.equal(isStorageUnavailable(new StorageUnavailableError('down')), true);
  assert.equal(isStorageUnavailable(Object.assign(new Error('down'), { code: 'STORAGE_UNAVAILABLE' })), true);
  assert.equal(isStorageUnavailable(new Error('a bug')), false);
  assert.equal(isStorageUnavailable(null), false);
  const { PostgresUnavailable } = await import('../../adapters/postgres/index.js');
  assert.ok(new PostgresUnavailable('who', 'where', new Error('x')) instanceof StorageUnavailableError);
});

test('a PostgreSQL outage answers 503 with Retry-After on REST, MCP and admin, /health says degraded, onError hears it once; 200 again once the server is back', async (t) => {
  const url = await cluster.createDatabase();
  const storage: PostgresStorage = await postgresStorage({ url, poolSize: 4, connectTimeoutMs: 2000 });
  const studio: PostgresStudio = await postgresStudio({ url, poolSize: 2, connectTimeoutMs: 2000 });
  t.after(async () => {
    await storage.close();
    await studio.close();
  });
  const heard: unknown[] = [];
  const server: TestServer = await startServer({ storage, studio, serviceKey, onError: (error) => heard.push(error) });
  t.after(() => server.close());
  const seller = as(server, server.seller.token);
  const admin = (path: string) => fetch(`${server.url}/api/admin${path}`, { headers: { authorization: `Bearer ${serviceKey}` } });

  const created = await seller.post('/assets', { title: 'Castle Pack', slug: 'castle-pack' });
  assert.equal(created.status, 201);
  const id = created.body.id as string;
  assert.equal((await seller.get(`/assets/${id}`)).status, 200);
  assert.equal((await fetch(`${server.api}/health`)).status, 200);

  await cluster.pause();
  const statuses: number[] = [];
  /** A 503 of the table, with Retry-After and nothing of the driver's message. */
  const unavailable = (status: number, headers: Headers, body: unknown, what: string) => {
    statuses.push(status);
    assert.equal(status, 503, `${what}: ${JSON.stringify(body)}`);
    assert.equal(headers.get('retry-after'), '5', `${what}: Retry-After`);
    const text = JSON.stringify(body);
    assert.doesNotMatch(text, /postgres|127\.0\.0\.1|ECONNREFUSED|terminat/i, `${what} shows nothing of the driver`);
  };

  const get = await seller.get(`/assets/${id}`);
  unavailable(get.status, get.headers, get.body, 'REST GET');
  assert.deepEqual(get.body, { error: 'The marketplace cannot reach its storage at the moment; retry in a few seconds.', code: 'SERVICE_UNAVAILABLE' });
  const post = await seller.post('/assets', { title: 'Another', slug: 'another' });
  unavailable(post.status, post.headers, post.body, 'REST POST');
  const patch = await seller.patch(`/assets/${id}`, { title: 'Renamed' });
  unavailable(patch.status, patch.headers, patch.body, 'REST PATCH');
  const studioList = await seller.get('/studio/projects');
  unavailable(studioList.status, studioList.headers, studioList.body, 'Studio GET');

  const tool = await callTool(server, server.seller.token, 'get_asset', { id });
  unavailable(tool.status, tool.headers, tool.body, 'MCP tools/call');
  assert.equal(tool.body.error.code, errorCatalogue.SERVICE_UNAVAILABLE.jsonRpc, 'the table’s JSON-RPC code');
  assert.equal(tool.body.error.data.code, 'SERVICE_UNAVAILABLE');

  const queue = await admin('/moderation/queue');
  unavailable(queue.status, queue.headers, await queue.json(), 'admin');

  const health = await fetch(`${server.api}/health`);
  statuses.push(health.status);
  assert.equal(health.status, 503);
  const report = (await health.json()) as { status: string; checks: { storage: string; blobs: string } };
  assert.deepEqual([report.status, report.checks.storage, report.checks.blobs], ['degraded', 'error', 'ok']);

  assert.equal(heard.length, 1, 'onError hears the outage once, not once per request');
  assert.ok(isStorageUnavailable(heard[0]));

  await cluster.resume();
  // The pool drops the connections the server ended and opens new ones: no restart.
  const back = await seller.get(`/assets/${id}`);
  statuses.push(back.status);
  assert.equal(back.status, 200);
  assert.equal(back.body.title, 'Castle Pack', 'the refused PATCH changed nothing');
  assert.equal((await seller.post('/assets', { title: 'After', slug: 'after-the-outage' })).status, 201);
  const toolBack = await callTool(server, server.seller.token, 'get_asset', { id });
  assert.equal(toolBack.status, 200);
  assert.equal((await admin('/moderation/queue')).status, 200);
  assert.equal((await fetch(`${server.api}/health`)).status, 200);
  assert.ok(!statuses.includes(500));
  assert.equal(heard.length, 1, 'nothing else went to onError');
});
