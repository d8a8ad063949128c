import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { hostedTools } from '../../core/mcp/tools.js';
import { modernParams, postMcp } from '../fixtures/mcp.js';
import { as, startServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let seeded: string;

before(async () => {
  server = await startServer();
  seeded = (await as(server, server.seller.token).post('/assets', { title: 'Seeded', slug: 'seeded-mcp' })).body.id;
});

after(() => server.close());

const methods = ['ping', 'initialize', 'server/discover', 'tools/list', 'tools/call', 'notifications/initialized', 'resources/list', '__proto__', 'constructor', ''];
const toolNames = [...hostedTools.map((tool) => tool.name), 'nope'];

const json = fc.jsonValue({ maxDepth: 3 });
const id = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.double(), json);

/** Bodies near and far from valid MCP: tool calls on a real listing, broken envelopes, batches, any JSON. */
function bodies(assetId: string) {
  const args = fc.oneof(
    json,
    fc.record(
      {
        asset_id: fc.oneof(fc.constant(assetId), fc.uuid(), fc.string({ maxLength: 10 })),
        title: fc.string({ maxLength: 10 }),
        slug: fc.stringMatching(/^[a-z0-9-]{1,12}$/),
        filename: fc.string({ maxLength: 10 }),
        limit: fc.integer({ min: -2, max: 200 }),
        storage_path: fc.string({ maxLength: 20 }),
        file_size: fc.integer(),
        __proto__: json,
      },
      { requiredKeys: [] },
    ),
  );
  const params = fc.oneof(
    fc.constant(undefined),
    json,
    fc.record({ name: fc.constantFrom(...toolNames), arguments: args }, { requiredKeys: ['name'] }),
    fc.record({ name: fc.constantFrom(...toolNames), arguments: args }).map((p) => modernParams(p)),
    fc.record({ protocolVersion: fc.oneof(fc.constantFrom('2025-06-18', '2026-07-28', '1999-01-01'), json), cursor: json }, { requiredKeys: [] }),
    fc.constantFrom('2026-07-28', '2099-01-01', 5).map((version) => ({ _meta: { 'io.modelcontextprotocol/protocolVersion': version } })),
  );
  const message = fc.oneof(
    fc.record({ jsonrpc: fc.oneof(fc.constant('2.0'), json), id, method: fc.oneof(fc.constantFrom(...methods), json), params }, { requiredKeys: ['jsonrpc', 'method'] }),
    fc.record({ jsonrpc: fc.constant('2.0'), id, result: json }),
    json,
  );
  return fc.oneof(message, fc.array(message, { maxLength: 5 }), json);
}

const headers = fc.record(
  {
    'mcp-protocol-version': fc.constantFrom('2026-07-28', '2025-11-25', '2025-03-26', 'bogus'),
    'mcp-method': fc.constantFrom(...methods),
    'mcp-name': fc.constantFrom(...toolNames, '=?base64?!!?='),
  },
  { requiredKeys: [] },
);

/** A JSON-RPC response as the specification shapes it. */
function isResponse(value: any): boolean {
  if (typeof value !== 'object' || value === null || value.jsonrpc !== '2.0') return false;
  const idOk = value.id === null || typeof value.id === 'string' || Number.isSafeInteger(value.id);
  const hasResult = 'result' in value;
  const hasError = 'error' in value;
  if (!idOk || hasResult === hasError) return false;
  return hasResult ? typeof value.result === 'object' && value.result !== null : Number.isInteger(value.error.code) && typeof value.error.message === 'string';
}

test('any JSON body POSTed to /api/mcp gets a well-formed JSON-RPC answer or 202, never a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(bodies(seeded), headers, fc.boolean(), async (sent, extraHeaders, withToken) => {
      const answer = await postMcp(server, JSON.stringify(sent), { headers: extraHeaders, ...(withToken ? { token: server.seller.token } : {}) });
      assert.ok(answer.status < 500, `status ${answer.status}`);
      if (answer.status === 202) {
        assert.equal(answer.body, null);
        return;
      }
      const responses = Array.isArray(answer.body) ? answer.body : [answer.body];
      assert.ok(responses.length > 0);
      for (const response of responses) assert.ok(isResponse(response), JSON.stringify(response));
      assert.ok([200, 400, 401, 404].includes(answer.status), `status ${answer.status}`);
    }),
    { numRuns: 300 },
  );
});

test('a tool result carries the listing exactly as REST does, as text and as structuredContent, whatever its text holds', async () => {
  // The answer is assembled from JSON made once (core/pipeline/raw-json.ts): no string in a listing,
  // quotes, backslashes, control characters, lone surrogates or look-alike placeholders, may shift it.
  const text = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.constantFrom('"raw-0"', 'raw-00000000000000000000000000000000-0', '"}],"structuredContent":{}}', '\\u0000', '\ud800', '</script>'),
  );
  let n = 0;
  await fc.assert(
    fc.asyncProperty(text, text, async (title, description) => {
      const client = as(server, server.seller.token);
      const created = await client.post('/assets', { title: `Pack ${title}`, slug: `raw-json-${++n}`, description });
      if (created.status !== 201) return; // a title the create rules refuse is not this property's business
      const rest = await fetch(`${server.url}/api/v1/assets/${created.body.id}`, { headers: { authorization: `Bearer ${server.seller.token}` } });
      const restText = await rest.text();
      const answer = await postMcp(server, { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'get_asset', arguments: { asset_id: created.body.id } } }, { token: server.seller.token });
      const result = (answer.body as { result: { content: { type: string; text: string }[]; structuredContent: unknown } }).result;
      assert.equal(result.content[0]!.text, restText);
      assert.deepEqual(result.structuredContent, JSON.parse(restText));
    }),
    { numRuns: 60 },
  );
});
