/** Checks of the hosted MCP endpoint, black-box over JSON-RPC on HTTP POST. */
import { ensure, expectStatus, toolRefusal, toolResult, type Check } from './check.js';
import { createDraft, unknownId } from './flows.js';

export const hostedToolNames = [
  'health_check', 'get_my_profile', 'list_categories', 'list_my_assets', 'get_asset', 'create_asset', 'update_asset',
  'delete_asset', 'get_asset_upload_url', 'confirm_asset_file', 'get_image_upload_url', 'confirm_image', 'submit_asset',
];

const rpcErrorCode = (body: any): number | undefined => body?.error?.code;

export const mcpChecks: Check[] = [
  {
    id: 'mcp.no-token-methods',
    title: 'ping, initialize, server/discover and tools/list without a token',
    requirements: ['MCP-PING', 'MCP-INITIALIZE', 'MCP-DISCOVER', 'MCP-TOOLS-LIST'],
    async run({ client }) {
      const ping = await client.rpc('ping', undefined);
      expectStatus('MCP-PING', ping, 200);
      ensure('MCP-PING', ping.body?.jsonrpc === '2.0' && JSON.stringify(ping.body.result) === '{}', 'result {}', ping);
      const init = await client.rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'marketkit-conformance', version: '1' } });
      expectStatus('MCP-INITIALIZE', init, 200);
      const r = init.body?.result;
      ensure('MCP-INITIALIZE', r?.protocolVersion === '2025-06-18' && r.capabilities?.tools && typeof r.serverInfo?.name === 'string' && typeof r.serverInfo.version === 'string', '{ protocolVersion: "2025-06-18", capabilities: { tools }, serverInfo: { name, version } }', init);
      // A 2026-07-28 request as that revision's clients send it: _meta and the mirrored headers.
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
      const discover = await client.rpc('server/discover', { _meta: meta }, null, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' });
      expectStatus('MCP-DISCOVER', discover, 200);
      const d = discover.body?.result;
      ensure('MCP-DISCOVER', Array.isArray(d?.supportedVersions) && d.supportedVersions.includes('2026-07-28') && d.capabilities && d.serverInfo, '{ supportedVersions (with 2026-07-28), capabilities, serverInfo }', discover);
      const list = await client.rpc('tools/list', {});
      expectStatus('MCP-TOOLS-LIST', list, 200);
      const tools: any[] = list.body?.result?.tools ?? [];
      const names = tools.map((tool) => tool.name);
      for (const name of hostedToolNames) ensure('MCP-TOOLS-LIST', names.includes(name), `the tool ${name}`, list);
      for (const tool of tools) {
        ensure('MCP-TOOLS-LIST', typeof tool.description === 'string' && tool.inputSchema?.type === 'object' && typeof tool.annotations?.readOnlyHint === 'boolean', `${tool.name}: description, inputSchema, annotations`, list);
      }
    },
  },
  {
    id: 'mcp.auth',
    title: 'tools/call needs a token, in a batch too',
    requirements: ['MCP-TOOLS-CALL-401', 'MCP-BATCH-AUTH'],
    async run({ client }) {
      for (const token of [null, 'smcp_notarealtoken']) {
        const call = await client.tool('list_my_assets', {}, token);
        expectStatus('MCP-TOOLS-CALL-401', call, 401);
        ensure('MCP-TOOLS-CALL-401', /^Bearer/i.test(call.headers.get('www-authenticate') ?? '') && call.body?.error && !call.body.result, 'WWW-Authenticate: Bearer and a JSON-RPC error', call);
      }
      const batch = await client.request('POST', client.mcpUrl, {
        json: [
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'create_asset', arguments: { title: 'Batch Smuggled', slug: `smuggled-${unknownId()}` } } },
        ],
        headers: { accept: 'application/json, text/event-stream' },
      });
      const answers: any[] = Array.isArray(batch.body) ? batch.body : [];
      const call = answers.find((answer) => answer?.id === 2);
      ensure('MCP-BATCH-AUTH', batch.status === 401 || (call && call.error && !call.result), 'the tools/call of the batch refused (HTTP 401 or a JSON-RPC error)', batch);
    },
  },
  {
    id: 'mcp.tools',
    title: 'tools act as the REST operations; refusals are isError results',
    requirements: ['MCP-HEALTH-CHECK', 'MCP-TOOL-RESULT', 'MCP-TOOL-REFUSAL'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const me = await client.get('/me', fixtures.seller);
      const health = await client.tool('health_check', {}, fixtures.seller);
      expectStatus('MCP-HEALTH-CHECK', health, 200);
      const h = toolResult(health);
      ensure('MCP-HEALTH-CHECK', h?.ok === true && h.user_id === me.body?.id, `{ ok: true, user_id: ${me.body?.id} }`, health);
      const slug = ctx.slug();
      const created = await client.tool('create_asset', { title: 'Made By Tool', slug }, fixtures.seller);
      expectStatus('MCP-TOOL-RESULT', created, 200);
      const result = created.body?.result;
      ensure('MCP-TOOL-RESULT', result && !result.isError && result.content?.[0]?.type === 'text' && result.structuredContent?.slug === slug, '{ content: [{ type: "text" }], structuredContent: the asset }', created);
      ensure('MCP-TOOL-RESULT', JSON.stringify(JSON.parse(result.content[0].text)) === JSON.stringify(result.structuredContent), 'the text to be the JSON of structuredContent', created);
      const rest = await client.get(`/assets/${result.structuredContent.id}`, fixtures.seller);
      ensure('MCP-TOOL-RESULT', rest.status === 200 && rest.body.slug === slug && rest.body.status === 'draft', 'the tool-made asset on REST as a draft', rest);
      const got = await client.tool('get_asset', { asset_id: result.structuredContent.id }, fixtures.seller);
      ensure('MCP-TOOL-RESULT', toolResult(got)?.id === result.structuredContent.id, 'get_asset by asset_id', got);
      const duplicate = await client.tool('create_asset', { title: 'Made Twice', slug }, fixtures.seller);
      expectStatus('MCP-TOOL-REFUSAL', duplicate, 200);
      const refusal = toolRefusal(duplicate);
      ensure('MCP-TOOL-REFUSAL', refusal?.code === 'CONFLICT' && typeof refusal.error === 'string', 'a result with isError: true and { error, code: CONFLICT }', duplicate);
      const missing = await client.tool('get_asset', { asset_id: unknownId() }, fixtures.seller);
      ensure('MCP-TOOL-REFUSAL', missing.status === 200 && toolRefusal(missing)?.code === 'NOT_FOUND', 'isError with NOT_FOUND', missing);
      const draft = await createDraft(ctx);
      const noFile = await client.tool('submit_asset', { asset_id: draft.id }, fixtures.seller);
      ensure('MCP-TOOL-REFUSAL', noFile.status === 200 && toolRefusal(noFile)?.code === 'NO_FILE', 'isError with NO_FILE', noFile);
    },
  },
  {
    id: 'mcp.tools.ownership',
    title: "a tool cannot reach another seller's asset",
    requirements: ['GEN-NOT-OWNED-404', 'MCP-TOOL-REFUSAL'],
    needs: ['secondSeller'],
    async run(ctx) {
      const asset = await createDraft(ctx);
      for (const [name, args] of [['get_asset', {}], ['delete_asset', {}], ['update_asset', { title: 'Taken Over' }]] as const) {
        const answer = await ctx.client.tool(name, { asset_id: asset.id, ...args }, ctx.fixtures.secondSeller);
        ensure('GEN-NOT-OWNED-404', toolRefusal(answer)?.code === 'NOT_FOUND', `${name} of another seller's asset: isError NOT_FOUND`, answer);
      }
    },
  },
  {
    id: 'mcp.jsonrpc',
    title: 'notifications, batches and JSON-RPC errors',
    requirements: ['MCP-NOTIFICATION-202', 'MCP-BATCH', 'MCP-JSONRPC-ERRORS', 'MCP-PROTOCOL-VERSION-400', 'MCP-VERSION-NEGOTIATION'],
    async run({ client, fixtures }) {
      const accept = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
      const note = await client.request('POST', client.mcpUrl, { raw: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), headers: accept });
      ensure('MCP-NOTIFICATION-202', note.status === 202 && note.body === '', '202 and no body', note);
      const batch = await client.request('POST', client.mcpUrl, {
        raw: JSON.stringify([{ jsonrpc: '2.0', id: 'a', method: 'ping' }, { jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 'b', method: 'ping' }]),
        headers: accept,
      });
      ensure('MCP-BATCH', batch.status === 200 && Array.isArray(batch.body) && batch.body.length === 2 && batch.body.map((x: { id: string }) => x.id).sort().join() === 'a,b', 'an array of the two answers', batch);
      const parse = await client.request('POST', client.mcpUrl, { raw: '{"jsonrpc": "2.0", "id": 1,', headers: accept });
      ensure('MCP-JSONRPC-ERRORS', parse.status === 400 && rpcErrorCode(parse.body) === -32700, 'HTTP 400 with -32700', parse);
      const notRpc = await client.request('POST', client.mcpUrl, { raw: JSON.stringify({ hello: 'world' }), headers: accept });
      ensure('MCP-JSONRPC-ERRORS', notRpc.status === 400 && rpcErrorCode(notRpc.body) === -32600, 'HTTP 400 with -32600', notRpc);
      const unknown = await client.rpc('no/such/method', {});
      ensure('MCP-JSONRPC-ERRORS', rpcErrorCode(unknown.body) === -32601, 'error -32601', unknown);
      const tool = await client.tool('no_such_tool', {}, fixtures.seller);
      ensure('MCP-JSONRPC-ERRORS', rpcErrorCode(tool.body) === -32602, 'error -32602', tool);
      const version = await client.rpc('ping', undefined, null, { 'mcp-protocol-version': '1999-01-01' });
      expectStatus('MCP-PROTOCOL-VERSION-400', version, 400);
      const old = await client.rpc('initialize', { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'marketkit-conformance', version: '1' } });
      ensure('MCP-VERSION-NEGOTIATION', old.body?.result?.protocolVersion === '2025-11-25', 'initialize to answer protocolVersion 2025-11-25 (the newest earlier revision)', old);
      const declared = await client.rpc('tools/list', { _meta: { 'io.modelcontextprotocol/protocolVersion': '1999-01-01', 'io.modelcontextprotocol/clientInfo': { name: 'marketkit-conformance', version: '1' } } });
      ensure('MCP-VERSION-NEGOTIATION', rpcErrorCode(declared.body) === -32022 && Array.isArray(declared.body.error.data?.supported), 'error -32022 with data.supported', declared);
    },
  },
  {
    id: 'mcp.http',
    title: 'GET/DELETE 405, foreign Origin 403, OAuth probes 401',
    requirements: ['MCP-METHOD-405', 'MCP-ORIGIN-403', 'MCP-OAUTH-PROBES-401'],
    async run({ client }) {
      for (const method of ['GET', 'DELETE']) expectStatus('MCP-METHOD-405', await client.request(method, client.mcpUrl, { headers: { accept: 'application/json, text/event-stream' } }), 405);
      const foreign = await client.rpc('ping', undefined, null, { origin: 'https://evil.example' });
      expectStatus('MCP-ORIGIN-403', foreign, 403);
      for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/api/mcp/.well-known/oauth-protected-resource', '/register', '/authorize', '/token']) {
        const probe = await client.get(`@${path}`);
        ensure('MCP-OAUTH-PROBES-401', probe.status === 401 && typeof probe.body === 'object' && probe.body !== null, `${path}: 401 with a JSON body`, probe);
      }
    },
  },
];
