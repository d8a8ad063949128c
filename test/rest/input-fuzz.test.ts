/**
 * The seeded fuzz test of issue 34 (docs/security.md, "Findings of the wave-2 security test"):
 * every numeric and string input of every REST route and MCP tool, in both protocol eras, at its
 * bounds and past them (2^53, 2^63, -0, 1e308, 1e309, NaN as text, 10,000-character strings,
 * U+0000, control and bidirectional characters), one field at a time beside valid-looking others,
 * on memory, SQLite and PostgreSQL. Any 5xx (or JSON-RPC -32603) fails it, and so does any error the
 * server's onError hears (test/fixtures/server.ts). Routes and tools are read from the served
 * OpenAPI document and tools/list, not from the code's tables. A seed repeats a run
 * (MARKETKIT_FUZZ_SEED); each store gets a time budget (MARKETKIT_FUZZ_BUDGET_MS, 45 s by default),
 * and the test says how far it got.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { callToolIn, mcpEras, modernParams, rpc, type McpEra } from '../fixtures/mcp.js';
import { as, validAsset, type TestServer } from '../fixtures/server.js';
import { startServerOn, stopStores, storeNames } from '../fixtures/stores.js';
import { bodyText, FuzzInputs, type Json } from '../fixtures/fuzz-inputs.js';

after(stopStores);

const seed = Number(process.env.MARKETKIT_FUZZ_SEED ?? 34_2026);
const budgetMs = Number(process.env.MARKETKIT_FUZZ_BUDGET_MS ?? 45_000);
const methods = new Set(['get', 'post', 'patch', 'put', 'delete']);

interface Run {
  server: TestServer;
  inputs: FuzzInputs;
  deadline: number;
  sent: number;
  failures: string[];
  /** Ids of records that exist, by the first segment of a path, so hostile bodies reach the store. */
  ids: Record<string, string>;
}

/** Sends one request unless the budget is spent; records a 5xx. False once the budget is spent. */
async function send(run: Run, what: string, request: () => Promise<{ status: number; rpcError?: number }>): Promise<boolean> {
  if (Date.now() > run.deadline) return false;
  const { status, rpcError } = await request();
  run.sent++;
  if (status >= 500 || rpcError === -32603) run.failures.push(`${what}: HTTP ${status}${rpcError ? ` / ${rpcError}` : ''}`);
  return true;
}

/** A path segment as a client may send it; a lone surrogate, which no UTF-8 holds, as the invalid bytes a client could send. */
function segment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

function describe(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value.length > 40 ? `${value.slice(0, 20)}…(${value.length})` : value) : bodyText(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

async function fuzzRest(run: Run, document: Json): Promise<boolean> {
  const { server, inputs } = run;
  for (const [template, operations] of Object.entries(document.paths as Record<string, Json>)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!methods.has(method)) continue;
      const parameters = (operation.parameters ?? []) as Json[];
      const pathParams = parameters.filter((p) => p.in === 'path').map((p) => p.name as string);
      const queryParams = parameters.filter((p) => p.in === 'query');
      const bodySchema = inputs.resolve(operation.requestBody?.content?.['application/json']?.schema);
      const first = template.split('/')[template.startsWith('/studio') ? 2 : 1]!;
      // DELETE goes to ids that exist nowhere: the records the other routes use stay.
      const realId = method === 'delete' ? undefined : run.ids[first];
      const basePath = Object.fromEntries(pathParams.map((name, i) => [name, i === 0 && realId ? realId : inputs.uuid()]));
      const baseBody = operation.requestBody ? inputs.sample(bodySchema) : undefined;
      const call = (path: Record<string, string>, query: Record<string, string>, body: unknown) => async () => {
        const url = `${server.api}${template.replace(/\{(\w+)\}/g, (_, name: string) => segment(path[name]!))}${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`;
        const headers: Record<string, string> = { authorization: `Bearer ${server.seller.token}` };
        if (body !== undefined) headers['content-type'] = 'application/json';
        const response = await fetch(url, { method: method.toUpperCase(), headers, ...(body !== undefined ? { body: bodyText(body) } : {}) });
        await response.arrayBuffer();
        return { status: response.status };
      };
      const name = `${method.toUpperCase()} ${template}`;
      for (const param of pathParams) {
        for (const value of inputs.hostileText()) if (!(await send(run, `${name} ${param}=${describe(value)}`, call({ ...basePath, [param]: value }, {}, baseBody)))) return false;
      }
      for (const param of queryParams) {
        for (const value of inputs.hostileText()) if (!(await send(run, `${name} ?${param}=${describe(value)}`, call(basePath, { [param.name]: value }, baseBody)))) return false;
      }
      for (const [field, node] of Object.entries((bodySchema.properties ?? {}) as Record<string, Json>)) {
        for (const value of inputs.hostile(node)) {
          if (!(await send(run, `${name} ${field}=${describe(value)}`, call(basePath, {}, { ...(baseBody as Json), [field]: value })))) return false;
        }
      }
    }
  }
  return true;
}

async function toolsOf(server: TestServer, era: McpEra): Promise<Json[]> {
  const answer =
    era === 'legacy'
      ? await rpc(server, 'tools/list', undefined, { token: server.seller.token })
      : await rpc(server, 'tools/list', modernParams(), { token: server.seller.token, headers: { 'mcp-method': 'tools/list' } });
  assert.equal(answer.status, 200, `${era} tools/list: ${JSON.stringify(answer.body)}`);
  return answer.body.result.tools as Json[];
}

async function fuzzMcp(run: Run): Promise<boolean> {
  const { server, inputs } = run;
  for (const era of mcpEras) {
    const tools = await toolsOf(server, era);
    assert.ok(tools.length > 0, `${era}: tools/list lists tools`);
    for (const tool of tools) {
      const schema = inputs.resolve(tool.inputSchema);
      const base = { ...(inputs.sample(schema) as Json) };
      if ('asset_id' in (schema.properties ?? {})) base.asset_id = run.ids.assets;
      for (const [field, node] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
        for (const value of inputs.hostile(node)) {
          const what = `${era} ${tool.name} ${field}=${describe(value)}`;
          // A raw number (1e309) is sent as the JSON text it is, in the arguments.
          const request = async () => {
            const answer = await callToolIn(era, server, server.seller.token, tool.name, JSON.parse(bodyText({ ...base, [field]: value })));
            return { status: answer.status, rpcError: answer.body?.error?.code };
          };
          if (!(await send(run, what, request))) return false;
        }
      }
    }
  }
  return true;
}

for (const store of storeNames) {
  test(`no numeric or string input of any REST route or MCP tool is a 5xx on ${store} (seed ${seed})`, async (t) => {
    const server = await startServerOn(store);
    t.after(() => server.close());
    const seller = as(server, server.seller.token);
    const ids = {
      assets: (await seller.post('/assets', validAsset())).body.id,
      webhooks: (await seller.post('/webhooks', { url: 'https://hooks.fuzz.example/in' })).body.id,
      projects: (await seller.post('/studio/projects', { name: 'Fuzz' })).body.id,
    };
    const document = (await (await fetch(`${server.api}/openapi.json`)).json()) as Json;
    const run: Run = { server, inputs: new FuzzInputs(seed, document.components?.schemas), deadline: Date.now() + budgetMs, sent: 0, failures: [], ids };
    const restDone = await fuzzRest(run, document);
    const mcpDone = restDone && (await fuzzMcp(run));
    t.diagnostic(`${store}: ${run.sent} requests with seed ${seed}; ${mcpDone ? 'every route and tool' : `the ${budgetMs} ms budget ran out before the end${restDone ? ' (REST done, MCP in part)' : ' (REST in part)'}`}`);
    assert.deepEqual(run.failures.slice(0, 20), [], `${run.failures.length} inputs answered 5xx (seed ${seed})`);
  });
}
