import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestMarketplace, type TestMarketplace } from '../../testing/index.js';
import { draftWithFile, send } from './kit-client.js';

const slug = () => `pack-${Math.random().toString(36).slice(2, 10)}`;

async function kit(): Promise<[TestMarketplace, Awaited<ReturnType<TestMarketplace['seller']>>]> {
  const mk = createTestMarketplace();
  return [mk, await mk.seller()];
}

const createAsset = (mk: TestMarketplace, seller: Awaited<ReturnType<TestMarketplace['seller']>>) =>
  send(mk, 'POST', '/assets', { as: seller, body: { title: 'Faulty pack', slug: slug() } });

describe('each fault kind happens exactly as configured, and only where configured', () => {
  test('error: a catalogue code with its status, for the next call only by default; other routes untouched', async () => {
    const [mk, seller] = await kit();
    const rule = mk.faults.error('POST /assets', 'PAYOUTS_REQUIRED');
    assert.equal((await send(mk, 'GET', '/assets', { as: seller })).status, 200, 'another method of the same path');
    const failed = await createAsset(mk, seller);
    assert.deepEqual([failed.status, failed.body.code], [409, 'PAYOUTS_REQUIRED']);
    assert.equal(typeof failed.body.error, 'string');
    assert.equal((await send(mk, 'GET', '/assets', { as: seller })).body.pagination.total, 0, 'the marketplace never saw the failed call');
    assert.equal((await createAsset(mk, seller)).status, 201, 'times defaults to 1');
    assert.equal(rule.fired, 1);
  });

  test('error with times, a status of choice, and the INTERNAL_ERROR of a flaky server', async () => {
    const [mk, seller] = await kit();
    mk.faults.error('GET /me', 'INTERNAL_ERROR', { times: 2 });
    mk.faults.error('GET /tokens', 'NOT_FOUND', { status: 410 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await send(mk, 'GET', '/me', { as: seller })).status);
    assert.deepEqual(statuses, [500, 500, 200]);
    const gone = await send(mk, 'GET', '/tokens', { as: seller });
    assert.deepEqual([gone.status, gone.body.code], [410, 'NOT_FOUND']);
  });

  test('rateLimit: 429 RATE_LIMITED with Retry-After and RateLimit headers', async () => {
    const [mk, seller] = await kit();
    mk.faults.rateLimit('POST /assets', { retryAfter: 7 });
    const limited = await createAsset(mk, seller);
    assert.deepEqual([limited.status, limited.body.code], [429, 'RATE_LIMITED']);
    assert.equal(limited.headers.get('retry-after'), '7');
    assert.equal(limited.headers.get('ratelimit-remaining'), '0');
    assert.match(limited.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, 'a request id, as on every answer');
    assert.equal((await createAsset(mk, seller)).status, 201);
  });

  test('unavailable: 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    const [mk, seller] = await kit();
    mk.faults.unavailable('* /assets/:id', { retryAfter: 3 });
    const made = await createAsset(mk, seller);
    const down = await send(mk, 'GET', `/assets/${made.body.id}`, { as: seller });
    assert.deepEqual([down.status, down.body.code, down.headers.get('retry-after')], [503, 'SERVICE_UNAVAILABLE', '3']);
    assert.equal((await send(mk, 'GET', `/assets/${made.body.id}`, { as: seller })).status, 200);
  });

  test("drop (before): fetch rejects as on a closed connection, and the marketplace did nothing", async () => {
    const [mk, seller] = await kit();
    mk.faults.drop('POST /assets');
    await assert.rejects(createAsset(mk, seller), (error: Error & { cause?: { code?: string } }) => error instanceof TypeError && error.message === 'fetch failed' && error.cause?.code === 'UND_ERR_SOCKET');
    assert.equal((await send(mk, 'GET', '/assets', { as: seller })).body.pagination.total, 0);
    assert.deepEqual(mk.requests.list({ operation: 'createAsset' }).map((r) => [r.status, r.fault]), [[null, 'drop']]);
  });

  test("drop (after): the work is done but the answer is lost, the trap of a blind retry", async () => {
    const [mk, seller] = await kit();
    mk.faults.drop('POST /assets', { when: 'after' });
    const body = { title: 'Lost answer', slug: 'lost-answer' };
    await assert.rejects(send(mk, 'POST', '/assets', { as: seller, body }), TypeError);
    assert.equal((await send(mk, 'GET', '/assets', { as: seller })).body.pagination.total, 1, 'it was created');
    assert.equal((await send(mk, 'POST', '/assets', { as: seller, body })).body.code, 'CONFLICT', 'a blind retry meets its own slug');
  });

  test('latency: the matching call is late by at least the given ms; others are not', async () => {
    const [mk, seller] = await kit();
    mk.faults.latency('GET /me', 400);
    let start = performance.now();
    assert.equal((await send(mk, 'GET', '/me', { as: seller })).status, 200);
    assert.ok(performance.now() - start >= 395, 'late');
    start = performance.now();
    await send(mk, 'GET', '/me', { as: seller });
    await send(mk, 'GET', '/assets', { as: seller });
    // Far below the 400 ms, with room for a loaded machine.
    assert.ok(performance.now() - start < 300, 'once, and only there');
    assert.deepEqual(mk.requests.list().map((r) => r.fault), ['latency', null, null]);
  });

  test('latency adds to another fault on the same call', async () => {
    const [mk, seller] = await kit();
    mk.faults.latency('GET /me', 60);
    mk.faults.unavailable('GET /me');
    const start = performance.now();
    assert.equal((await send(mk, 'GET', '/me', { as: seller })).status, 503);
    assert.ok(performance.now() - start >= 55);
    assert.equal(mk.requests.last()!.fault, 'latency+unavailable');
  });

  test('partialUpload: the PUT breaks halfway, nothing is stored, confirm-file refuses; the next PUT works', async () => {
    const [mk, seller] = await kit();
    const made = await createAsset(mk, seller);
    const issued = await send(mk, 'POST', `/assets/${made.body.id}/upload-url`, { as: seller, body: { filename: 'pack.zip' } });
    mk.faults.partialUpload();
    const bytes = new Uint8Array(4096).fill(7);
    await assert.rejects(mk.fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes }), TypeError);
    const confirm = await send(mk, 'POST', `/assets/${made.body.id}/confirm-file`, { as: seller, body: { storage_path: issued.body.storage_path, file_size: 4096 } });
    assert.deepEqual([confirm.status, confirm.body.code], [400, 'INVALID_INPUT']);
    assert.match(confirm.body.error, /no uploaded file/);
    assert.equal((await mk.fetch(issued.body.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: bytes })).status, 200);
    assert.equal((await send(mk, 'POST', `/assets/${made.body.id}/confirm-file`, { as: seller, body: { storage_path: issued.body.storage_path, file_size: 4096 } })).status, 200);
  });

  test("'upload:image' faults image PUTs only", async () => {
    const [mk, seller] = await kit();
    mk.faults.unavailable('upload:image', { times: 10 });
    assert.ok(await draftWithFile(mk, seller, { title: 'File is fine', slug: slug() }), 'the file PUT went through');
  });

  test('by operation: { operation } matches that REST operation on any listing, nothing else', async () => {
    const [mk, seller] = await kit();
    const a = await draftWithFile(mk, seller, { title: 'First', slug: slug() });
    const b = await draftWithFile(mk, seller, { title: 'Second', slug: slug() });
    mk.faults.error({ operation: 'submitAsset' }, 'NO_FILE', { times: 2 });
    assert.equal((await send(mk, 'POST', `/assets/${a}/submit`, { as: seller })).body.code, 'NO_FILE');
    assert.equal((await send(mk, 'GET', `/assets/${a}`, { as: seller })).status, 200);
    assert.equal((await send(mk, 'POST', `/assets/${b}/submit`, { as: seller })).body.code, 'NO_FILE');
    assert.equal((await send(mk, 'POST', `/assets/${b}/submit`, { as: seller })).body.status, 'pending');
  });

  test("the MCP endpoint is matched as a whole: 'POST /api/mcp'", async () => {
    const [mk, seller] = await kit();
    mk.faults.unavailable('POST /api/mcp');
    const ping = () =>
      mk.fetch(`${mk.url}/api/mcp`, { method: 'POST', headers: { ...seller.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' });
    assert.equal((await ping()).status, 503);
    const answered = await ping();
    assert.equal(answered.status, 200);
    assert.deepEqual((await answered.json()).result, {});
    assert.equal((await send(mk, 'GET', '/me', { as: seller })).status, 200);
  });

  test('by MCP tool: an error is the tool refusal the marketplace would give; other tools and REST untouched', async () => {
    const [mk, seller] = await kit();
    const id = await draftWithFile(mk, seller, { title: 'Via MCP', slug: slug() });
    const rpc = async (body: unknown) => {
      const response = await mk.fetch(`${mk.url}/api/mcp`, {
        method: 'POST',
        headers: { ...seller.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    };
    const call = (name: string, n: number) => ({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name, arguments: { asset_id: id } } });
    mk.faults.error({ tool: 'submit_asset' }, 'PAYOUTS_REQUIRED');
    assert.equal((await rpc(call('get_asset', 1))).body.result.structuredContent.id, id, 'another tool');
    const refused = await rpc(call('submit_asset', 2));
    assert.equal(refused.status, 200);
    assert.deepEqual([refused.body.id, refused.body.result.isError, refused.body.result.structuredContent.code], [2, true, 'PAYOUTS_REQUIRED']);
    assert.equal((await rpc(call('submit_asset', 3))).body.result.structuredContent.status, 'pending', 'once');
    mk.faults.rateLimit({ tool: 'get_asset' }, { retryAfter: 4 });
    const batch = await mk.fetch(`${mk.url}/api/mcp`, {
      method: 'POST',
      headers: { ...seller.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify([{ jsonrpc: '2.0', id: 4, method: 'ping' }, call('get_asset', 5)]),
    });
    assert.deepEqual([batch.status, batch.headers.get('retry-after')], [429, '4'], 'a batch that calls the tool is refused whole, over HTTP');
    assert.equal((await send(mk, 'GET', `/assets/${id}`, { as: seller })).status, 200);
  });

  test('skip lets the first calls through', async () => {
    const [mk, seller] = await kit();
    mk.faults.error('GET /me', 'FORBIDDEN', { skip: 2 });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await send(mk, 'GET', '/me', { as: seller })).status);
    assert.deepEqual(statuses, [200, 200, 403, 200]);
  });

  test('a rule can be removed, and faults.list() shows what fired', async () => {
    const [mk, seller] = await kit();
    const rule = mk.faults.rateLimit('GET /me', { times: 3 });
    await send(mk, 'GET', '/me', { as: seller });
    assert.deepEqual(mk.faults.list().map(({ kind, fired, seen, remaining }) => ({ kind, fired, seen, remaining })), [{ kind: 'rateLimit', fired: 1, seen: 1, remaining: 2 }]);
    rule.remove();
    assert.equal((await send(mk, 'GET', '/me', { as: seller })).status, 200);
  });

  test('a rule with a mistake is refused, naming it', async () => {
    const [mk] = await kit();
    assert.throws(() => mk.faults.error('POST /assets', 'NOPE' as never), /code must be one of the catalogue/);
    assert.throws(() => mk.faults.add({ target: 'nonsense', kind: 'drop' }), /target "nonsense"/);
    assert.throws(() => mk.faults.drop('GET /me', { probability: 2 }), /probability/);
    assert.throws(() => mk.faults.rateLimit('GET /me', { times: 0 }), /times/);
    assert.throws(() => mk.faults.add({ target: 'GET /me', kind: 'rateLimit', retry_after: 2 } as never), /retry_after is not an option of a rateLimit fault/);
  });
});

describe('seeded probability', () => {
  async function pattern(seed: number): Promise<number[]> {
    const [mk, seller] = await kit();
    mk.faults.unavailable('GET /me', { probability: 0.3, seed });
    const statuses = [];
    for (let i = 0; i < 40; i++) statuses.push((await send(mk, 'GET', '/me', { as: seller })).status);
    return statuses;
  }

  test('the same seed fails the same calls on every run', async () => {
    const first = await pattern(42);
    assert.deepEqual(await pattern(42), first);
    const failures = first.filter((s) => s === 503).length;
    assert.ok(failures > 3 && failures < 25, `about 30% of 40 calls fail (${failures})`);
    assert.notDeepEqual(await pattern(7), first, 'another seed, another pattern');
  });

  test('reset() clears faults; a rule added again starts its sequence over', async () => {
    const [mk, seller] = await kit();
    const run = async () => {
      mk.faults.drop('GET /me', { probability: 0.5, seed: 3 });
      const outcome = [];
      for (let i = 0; i < 12; i++) outcome.push(await send(mk, 'GET', '/me', { as: seller }).then((r) => r.status, () => 'dropped'));
      return outcome;
    };
    const first = await run();
    await mk.reset();
    assert.deepEqual(await run(), first);
  });
});

describe('faults over a real port (listen)', () => {
  test('a dropped connection closes the socket; a 429 carries its headers; close() stops the server', async (t) => {
    const mk = createTestMarketplace();
    const seller = await mk.seller();
    const server = await mk.listen();
    t.after(() => mk.close());
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    mk.faults.drop('GET /me');
    await assert.rejects(fetch(`${server.api}/me`, { headers: seller.headers }), TypeError);
    mk.faults.rateLimit('GET /me', { retryAfter: 2 });
    const limited = await fetch(`${server.api}/me`, { headers: seller.headers });
    assert.deepEqual([limited.status, limited.headers.get('retry-after'), (await limited.json()).code], [429, '2', 'RATE_LIMITED']);
    const ok = await fetch(`${server.api}/me`, { headers: seller.headers });
    assert.equal((await ok.json()).username, 'seller');
    // The signed URL names the real address, and a partial upload breaks the real connection.
    const made = await fetch(`${server.api}/assets`, { method: 'POST', headers: { ...seller.headers, 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Over HTTP', slug: 'over-http' }) }).then((r) => r.json());
    const issued = await fetch(`${server.api}/assets/${made.id}/upload-url`, { method: 'POST', headers: { ...seller.headers, 'content-type': 'application/json' }, body: '{"filename":"a.zip"}' }).then((r) => r.json());
    assert.ok(issued.signed_url.startsWith(server.url));
    mk.faults.partialUpload();
    await assert.rejects(fetch(issued.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: new Uint8Array(100_000) }), TypeError);
    assert.equal((await fetch(issued.signed_url, { method: 'PUT', headers: { 'content-type': 'application/zip' }, body: new Uint8Array(100_000) })).status, 200);
    await server.close();
    await assert.rejects(fetch(`${server.api}/me`, { headers: seller.headers }), TypeError);
  });
});

describe('the typed client recovers from an answer dropped after the write ran (drop, when: after)', () => {
  const fast = { baseDelayMs: 5, maxDelayMs: 20 };

  test('in process (mk.fetch): createAsset retries with its Idempotency-Key and returns the one listing', async () => {
    const [mk, seller] = await kit();
    const { createClient } = await import('../../client/index.js');
    mk.faults.drop('POST /assets', { when: 'after' });
    const client = createClient({ baseUrl: 'http://marketplace.test', token: seller.token, fetch: mk.fetch, retry: fast });
    const created = await client.createAsset({ title: 'Dropped answer', slug: 'dropped-answer' });
    const calls = mk.requests.list({ operation: 'createAsset' });
    assert.deepEqual(calls.map((r) => [r.status, r.fault]), [[null, 'drop'], [201, null]], 'the first answer was lost, the retry answered');
    const all = (await send(mk, 'GET', '/assets', { as: seller })).body;
    assert.deepEqual(all.data.map((a: { id: string }) => a.id), [created.id], 'one listing, the one returned');
  });

  test('over a real port (listen): submitAsset retries and the listing is submitted once', async (t) => {
    const mk = createTestMarketplace();
    const seller = await mk.seller();
    const server = await mk.listen();
    t.after(() => mk.close());
    const { createClient } = await import('../../client/index.js');
    const client = createClient({ baseUrl: server.url, token: seller.token, retry: fast });
    const id = await draftWithFile(mk, seller, { title: 'Submitted once', slug: 'submitted-once' });
    mk.faults.drop('POST /assets/:id/submit', { when: 'after' });
    const submitted = await client.submitAsset(id);
    assert.equal(submitted.success, true);
    const calls = mk.requests.list({ operation: 'submitAsset' });
    assert.deepEqual(calls.map((r) => [r.status, r.fault]), [[null, 'drop'], [200, null]]);
    assert.equal(mk.events.list().filter((event) => event.type === 'asset.submitted').length, 1, 'submitted once');
  });
});
