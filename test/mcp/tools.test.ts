import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { memoryStorage } from '../../adapters/memory/index.js';
import { developerOperations } from '../../core/operations/index.js';
import { callTool, rpc } from '../fixtures/mcp.js';
import { as, assetWithFile, forceStatus, startServer, validAsset, type TestServer } from '../fixtures/server.js';

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

/** A tools/call that must succeed at the HTTP and JSON-RPC levels; returns the tool result. */
async function toolResult(token: string, name: string, args?: Record<string, unknown>) {
  const answer = await callTool(server, token, name, args);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.result;
}

async function toolsByName() {
  const { body } = await rpc(server, 'tools/list');
  return new Map<string, any>(body.result.tools.map((tool: any) => [tool.name, tool]));
}

test('tools/call without a token, or with a bad one, is HTTP 401 with WWW-Authenticate: Bearer and a JSON-RPC error', async () => {
  for (const token of [undefined, 'smcp_typo', 'not-even-a-token']) {
    const answer = await callTool(server, token, 'get_my_profile');
    assert.equal(answer.status, 401, String(token));
    assert.equal(answer.headers.get('www-authenticate'), 'Bearer');
    assert.equal(answer.body.error.data.code, 'UNAUTHORIZED');
    assert.equal(typeof answer.body.error.code, 'number');
  }
});

test('a token revoked on REST stops working on MCP at its very next call', async () => {
  const account = await server.account();
  assert.equal((await callTool(server, account.token, 'health_check')).status, 200);
  const revoked = await as(server, account.token).delete(`/tokens?id=${account.tokenId}`);
  assert.equal(revoked.status, 200);
  const after = await callTool(server, account.token, 'health_check');
  assert.equal(after.status, 401);
  assert.equal(after.headers.get('www-authenticate'), 'Bearer');
});

test('a tool answers the same JSON as its REST twin, as structuredContent and as text', async () => {
  const { id } = await assetWithFile(server, server.seller.token);
  const rest = await as(server, server.seller.token).get(`/assets/${id}`);
  const result = await toolResult(server.seller.token, 'get_asset', { asset_id: id });
  assert.deepEqual(result.structuredContent, rest.body);
  assert.deepEqual(result.content, [{ type: 'text', text: JSON.stringify(rest.body) }]);
  assert.equal(result.isError, undefined);
  const profile = await toolResult(server.seller.token, 'get_my_profile');
  assert.deepEqual(profile.structuredContent, (await as(server, server.seller.token).get('/me')).body);
});

test('a domain refusal is a tool result with isError and the REST error body, not an HTTP error', async () => {
  const { id } = await assetWithFile(server, server.seller.token);
  await forceStatus(server, id, 'published');
  const cases: [string, Record<string, unknown>, string][] = [
    ['get_asset', { asset_id: '00000000-0000-4000-8000-000000000000' }, 'NOT_FOUND'],
    ['delete_asset', { asset_id: id }, 'NOT_DRAFT'],
    ['get_asset_upload_url', { asset_id: id, filename: 'v2.zip' }, 'LISTING_IS_LIVE'],
    ['submit_asset', { asset_id: id }, 'INVALID_STATUS'],
  ];
  for (const [name, args, code] of cases) {
    const rest = await restTwin(name, args);
    const result = await toolResult(server.seller.token, name, args);
    assert.equal(result.isError, true, name);
    assert.equal(result.structuredContent.code, code, name);
    assert.deepEqual(result.structuredContent, rest, `${name}: the same body as REST`);
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  }
  const other = await toolResult(server.other.token, 'get_asset', { asset_id: id });
  assert.equal(other.structuredContent.code, 'NOT_FOUND', "another seller's listing is indistinguishable from a missing one");
});

/** The REST answer's body for the same call, to compare refusals. */
async function restTwin(name: string, args: Record<string, unknown>) {
  const client = as(server, server.seller.token);
  const id = args.asset_id as string;
  const calls: Record<string, () => Promise<{ body: unknown }>> = {
    get_asset: () => client.get(`/assets/${id}`),
    delete_asset: () => client.delete(`/assets/${id}`),
    get_asset_upload_url: () => client.post(`/assets/${id}/upload-url`, { filename: args.filename }),
    submit_asset: () => client.post(`/assets/${id}/submit`),
  };
  return (await calls[name]!()).body;
}

test('invalid arguments of a known tool are an isError INVALID_INPUT naming the field, so the model can correct them', async () => {
  const result = await toolResult(server.seller.token, 'create_asset', { title: 'ab', slug: 'Not A Slug', status: 'published' });
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent.code, 'INVALID_INPUT');
  const fields = result.structuredContent.details.map((detail: { path: string }) => detail.path).sort();
  assert.deepEqual(fields, ['slug', 'status', 'title']);
  const rest = await as(server, server.seller.token).post('/assets', { title: 'ab', slug: 'Not A Slug', status: 'published' });
  assert.deepEqual(result.structuredContent, rest.body);
});

test('scopes and seller checks are the same as on REST, and come before input checks', async () => {
  const reader = await server.account({}, ['assets:read']);
  const refused = await toolResult(reader.token, 'create_asset', { title: 'x' });
  assert.equal(refused.isError, true);
  assert.equal(refused.structuredContent.code, 'FORBIDDEN');
  assert.match(refused.structuredContent.error, /assets:write/);
  const buyer = await server.account({ seller_status: 'none' });
  const notSeller = await toolResult(buyer.token, 'create_asset', validAsset());
  assert.equal(notSeller.structuredContent.code, 'NOT_A_SELLER');
  const suspended = await server.account({ is_suspended: true });
  const blocked = await toolResult(suspended.token, 'health_check');
  assert.deepEqual([blocked.isError, blocked.structuredContent.code], [true, 'FORBIDDEN']);
});

test('health_check works with any valid token, whatever its scopes', async () => {
  const narrow = await server.account({}, ['tokens:read']);
  const result = await toolResult(narrow.token, 'health_check');
  assert.deepEqual(result.structuredContent, { ok: true, user_id: narrow.id, checks: { storage: 'ok', blobs: 'ok' } });
  const extra = await toolResult(narrow.token, 'health_check', { verbose: true });
  assert.equal(extra.structuredContent.code, 'INVALID_INPUT');
});

test('health_check reports a store that stops answering once the clock has moved its two seconds, and the store back as soon as it answers', async () => {
  let hang = false;
  let hanging = 0;
  const storage = memoryStorage();
  const ping = () => {
    if (!hang) return storage.ping();
    hanging++;
    return new Promise<void>(() => {});
  };
  const watched = await startServer({ storage: { ...storage, ping } });
  try {
    const { token, id } = await watched.account();
    const healthy = await callTool(watched, token, 'health_check');
    assert.deepEqual(healthy.body.result.structuredContent, { ok: true, user_id: id, checks: { storage: 'ok', blobs: 'ok' } });
    hang = true;
    let answered = false;
    const both = Promise.all([callTool(watched, token, 'health_check'), fetch(`${watched.api}/health`)]).finally(() => (answered = true));
    while (hanging < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    // The limit is the marketplace's clock's (its clock port), not the wall's: the test's clock stands still until moved.
    watched.clock.advance(1999);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(answered, false, 'not answered before the clock has moved two seconds');
    watched.clock.advance(1);
    const started = Date.now();
    const [late, rest] = await both;
    const waited = Date.now() - started;
    assert.deepEqual(late.body.result.structuredContent, { ok: false, user_id: id, checks: { storage: 'error', blobs: 'ok' } });
    assert.deepEqual((await rest.json()).checks, { storage: 'error', blobs: 'ok' });
    assert.ok(waited < 1000, `answered ${waited} ms after the clock passed the limit: within a tick (100 ms)`);
    hang = false;
    const back = await callTool(watched, token, 'health_check');
    assert.deepEqual(back.body.result.structuredContent, { ok: true, user_id: id, checks: { storage: 'ok', blobs: 'ok' } });
  } finally {
    await watched.close();
  }
});

test('tool calls count against the same rate limit as REST, with its headers; past it the refusal says when to retry', async () => {
  const limited = await startServer({ rateLimits: { read: { limit: 2, windowSeconds: 60 } } });
  try {
    const { token } = limited.seller;
    assert.equal((await as(limited, token).get('/me')).status, 200);
    const second = await callTool(limited, token, 'get_my_profile');
    assert.equal(second.headers.get('ratelimit-remaining'), '0');
    const third = await callTool(limited, token, 'list_categories');
    assert.equal(third.status, 200);
    assert.equal(third.body.result.isError, true);
    assert.equal(third.body.result.structuredContent.code, 'RATE_LIMITED');
    assert.ok(Number(third.headers.get('retry-after')) > 0);
  } finally {
    await limited.close();
  }
});

test('input schemas are the REST schemas: required fields, asset_id, and no extra fields', async () => {
  const tools = await toolsByName();
  const create = tools.get('create_asset').inputSchema;
  assert.deepEqual([...create.required].sort(), ['slug', 'title']);
  assert.equal(create.additionalProperties, false);
  assert.equal(create.properties.title.maxLength, 200);
  for (const name of ['get_asset', 'update_asset', 'delete_asset', 'get_asset_upload_url', 'confirm_asset_file', 'get_image_upload_url', 'confirm_image', 'submit_asset']) {
    assert.ok(tools.get(name).inputSchema.required.includes('asset_id'), `${name} addresses a listing with asset_id`);
  }
  assert.deepEqual(tools.get('get_my_profile').inputSchema, { type: 'object', properties: {}, additionalProperties: false });
  assert.ok(!JSON.stringify([...tools.values()]).includes('"$id"'), 'no $id, which validators would see twice');
});

test('output schemas describe the result and the refusal body', async () => {
  const output = (await toolsByName()).get('submit_asset').outputSchema;
  assert.equal(output.type, 'object');
  const [result, refusal] = output.anyOf;
  assert.deepEqual([...result.required].sort(), ['id', 'scheduled_publish_at', 'status', 'success']);
  assert.deepEqual([...refusal.required].sort(), ['code', 'error']);
});

test('annotations mark the read-only and the destructive tools', async () => {
  const tools = await toolsByName();
  const flagged = (hint: string) => [...tools.values()].filter((tool) => tool.annotations[hint]).map((tool) => tool.name).sort();
  // As the operations declare them (health_check, no operation, reads); the spec's are named.
  const declared = (hint: 'readOnlyHint' | 'destructiveHint') =>
    developerOperations.flatMap((operation) => (operation.tool && !operation.tool.localOnly && operation.tool.annotations[hint] ? [operation.tool.name] : []));
  assert.deepEqual(flagged('readOnlyHint'), ['health_check', ...declared('readOnlyHint')].sort());
  assert.deepEqual(flagged('destructiveHint'), declared('destructiveHint').sort());
  for (const name of ['get_asset', 'get_my_profile', 'health_check', 'list_categories', 'list_my_assets']) assert.ok(flagged('readOnlyHint').includes(name), name);
  for (const name of ['confirm_asset_file', 'delete_asset', 'update_asset']) assert.ok(flagged('destructiveHint').includes(name), name);
  for (const tool of tools.values()) {
    assert.deepEqual(Object.keys(tool.annotations).sort(), ['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint'], tool.name);
  }
});

test('update_asset and delete_asset change the listing as REST does', async () => {
  const created = await toolResult(server.seller.token, 'create_asset', validAsset());
  const id = created.structuredContent.id;
  const updated = await toolResult(server.seller.token, 'update_asset', { asset_id: id, title: 'Renamed Pack', tags: ['a', 'A', 'b'] });
  assert.deepEqual([updated.structuredContent.title, updated.structuredContent.tags], ['Renamed Pack', ['a', 'b']]);
  const listed = await toolResult(server.seller.token, 'list_my_assets', { status: 'draft', limit: 100 });
  assert.ok(listed.structuredContent.data.some((asset: { id: string }) => asset.id === id));
  const deleted = await toolResult(server.seller.token, 'delete_asset', { asset_id: id });
  assert.deepEqual(deleted.structuredContent, { success: true, id });
  assert.equal((await as(server, server.seller.token).get(`/assets/${id}`)).status, 404);
});
