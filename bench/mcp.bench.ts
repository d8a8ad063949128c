/**
 * MCP tools/call throughput on Node: get_asset and health_check on MarketKit's /api/mcp against the
 * official SDK's own server (McpServer on its Streamable HTTP server transport, stateless, JSON
 * responses, the two tools returning the same JSON), with bare node:http answering as many bytes as
 * the ceiling. The floor (issue 31): each tool at least 10 times the SDK server's throughput,
 * printed met or NOT met.
 *
 *   npx tsx bench/mcp.bench.ts [--seconds 3] [--rounds 5] [--connections 10] [--tools get_asset,health_check]
 *
 * Every server is a child process on 127.0.0.1; autocannon loads it from this process, the three
 * in turns, so that all see the same machine. The SDK server is given every advantage: no
 * authentication, no storage, a constant result. MarketKit authenticates the token, charges the
 * rate limiter and reads the listing from the memory store on every call.
 */
import './help.js';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatFigures, load, responseBytes, serveBareJson, startChild, stopChild, type Figures, type Target } from './lib.js';

const script = fileURLToPath(import.meta.url);
const accept = 'application/json, text/event-stream';

const tools = ['get_asset', 'health_check'] as const;
type Tool = (typeof tools)[number];
type Targets = Record<Tool, Target>;

function toolCall(tool: Tool, assetId: string): string {
  const args = tool === 'get_asset' ? { asset_id: assetId } : {};
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } });
}

/** Child: MarketKit on memory adapters with one seller, a token and a listing. */
async function serveMarketKit(): Promise<Targets> {
  const { memoryBlobs, memoryStorage } = await import('../adapters/memory/index.js');
  const { serve } = await import('../bindings/node/index.js');
  const { createMarketplace } = await import('../core/marketplace.js');
  // The limiter would refuse a load test; give it room so that every call does the full work.
  const room = { limit: 1e9, windowSeconds: 60 };
  const marketplace = createMarketplace({
    storage: memoryStorage(),
    blobs: memoryBlobs(),
    rateLimits: { read: room, write: room, upload: room },
    // autocannon hangs up on the requests in flight when a run ends: not a failure of the server.
    onError: (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') console.error('bench server error:', error);
    },
  });
  const seller = await marketplace.admin.createAccount({ username: 'bench', seller_status: 'approved', payouts_connected: true });
  const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 'bench' });
  const running = await serve(marketplace, { port: 0, host: '127.0.0.1' });
  const headers = { 'content-type': 'application/json', accept, authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' };
  const created = await fetch(`${running.url}/api/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_asset', arguments: { title: 'Bench Pack', slug: 'bench-pack', description: 'Stone walls, towers and gates.', tags: ['bench'] } },
    }),
  });
  const assetId: string = (await created.json()).result.structuredContent.id;
  const target = (tool: Tool): Target => ({ name: `MarketKit /api/mcp ${tool}`, url: `${running.url}/api/mcp`, method: 'POST', headers, body: toolCall(tool, assetId) });
  return { get_asset: target('get_asset'), health_check: target('health_check') };
}

/** Child: the SDK's stateless server as its documentation builds it, a server and a transport per request. */
async function serveSdk(results: Record<Tool, Record<string, unknown>>): Promise<Targets> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { z } = await import('zod');
  const asset = results.get_asset;
  const text = JSON.stringify(asset);
  const health = results.health_check;
  const healthText = JSON.stringify(health);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const server = new McpServer({ name: 'sdk-bench', version: '1.0.0' });
    server.registerTool('get_asset', { description: 'One listing by asset_id', inputSchema: { asset_id: z.string() } }, async () => ({
      content: [{ type: 'text' as const, text }],
      structuredContent: asset,
    }));
    server.registerTool('health_check', { description: 'Checks the connection', inputSchema: {} }, async () => ({
      content: [{ type: 'text' as const, text: healthText }],
      structuredContent: health,
    }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch(() => res.headersSent || res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const headers = { 'content-type': 'application/json', accept, 'mcp-protocol-version': '2025-11-25' };
  const target = (tool: Tool): Target => ({ name: `SDK McpServer, stateless, ${tool}`, url, method: 'POST', headers, body: toolCall(tool, asset.id as string) });
  return { get_asset: target('get_asset'), health_check: target('health_check') };
}

/** The listing a server returns, after checking that the call succeeded. */
async function structuredContentOf(target: Target): Promise<Record<string, unknown>> {
  const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body ?? null });
  const answer = await response.json();
  if (response.status !== 200 || !answer.result?.structuredContent || answer.result.isError) throw new Error(`${target.name} did not answer the call: ${JSON.stringify(answer)}`);
  return answer.result.structuredContent;
}

/** CPU seconds a process has used (user + system), from /proc on Linux; null elsewhere. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in ticks of 1/100 s
  } catch {
    return null;
  }
}

/**
 * A load run and the server's CPU time per call. On a machine shared with other work, throughput
 * moves with the neighbours' load; the CPU a call costs moves much less. The 1-second warm-up is in
 * the CPU time, and counted as calls at the measured rate.
 */
async function measure(target: Target, pid: number, options: { seconds: number; connections: number }) {
  const before = cpuSeconds(pid);
  const figures = await load(target, options);
  const after = cpuSeconds(pid);
  const cpuMicros = before === null || after === null ? NaN : ((after - before) * 1e6) / (figures.rps * (options.seconds + 1));
  return { figures, cpuMicros };
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

async function main() {
  const { values } = parseArgs({
    options: {
      serve: { type: 'string' },
      asset: { type: 'string' },
      bytes: { type: 'string' },
      seconds: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '10' },
      tools: { type: 'string', default: tools.join(',') },
    },
  });
  if (values.serve) {
    const served = {
      marketkit: () => serveMarketKit(),
      sdk: () => serveSdk(JSON.parse(values.asset!) as Record<Tool, Record<string, unknown>>),
      baseline: async () => ({ url: await serveBareJson(Number(values.bytes)) }),
    }[values.serve];
    if (!served) throw new Error(`--serve takes marketkit, sdk or baseline, not ${values.serve}`);
    console.log(JSON.stringify(await served()));
    return;
  }
  const options = { seconds: Number(values.seconds), connections: Number(values.connections) };
  const rounds = Number(values.rounds);
  const chosen = values.tools.split(',').map((name) => {
    if (!(tools as readonly string[]).includes(name)) throw new Error(`--tools takes ${tools.join(', ')}, not ${name}`);
    return name as Tool;
  });
  const ours = await startChild<Targets>(script, ['--serve', 'marketkit']);
  const results = { get_asset: await structuredContentOf(ours.info.get_asset), health_check: await structuredContentOf(ours.info.health_check) };
  const sdk = await startChild<Targets>(script, ['--serve', 'sdk', '--asset', JSON.stringify(results)]);
  const bares: Awaited<ReturnType<typeof startChild<{ url: string }>>>[] = [];
  try {
    console.log(`MCP tools/call on Node ${process.version}: ${options.connections} connections, ${rounds} x ${options.seconds} s per server, in turns`);
    for (const tool of chosen) {
      if (JSON.stringify(await structuredContentOf(sdk.info[tool])) !== JSON.stringify(results[tool])) throw new Error(`the two servers do not return the same JSON for ${tool}`);
      const bytes = await responseBytes(ours.info[tool]);
      const bare = await startChild<{ url: string }>(script, ['--serve', 'baseline', '--bytes', String(bytes)]);
      bares.push(bare);
      const servers = [
        { target: { ...ours.info[tool], name: `bare node:http, ${bytes} B JSON`, url: bare.info.url }, pid: bare.child.pid! },
        { target: ours.info[tool], pid: ours.child.pid! },
        { target: sdk.info[tool], pid: sdk.child.pid! },
      ];
      const runs = servers.map(() => [] as Awaited<ReturnType<typeof measure>>[]);
      for (let round = 0; round < rounds; round++) {
        for (const [i, { target, pid }] of servers.entries()) runs[i]!.push(await measure(target, pid, options));
      }
      const figures = runs.map((all): Figures => ({
        rps: mean(all.map((run) => run.figures.rps)),
        p50: mean(all.map((run) => run.figures.p50)),
        p99: mean(all.map((run) => run.figures.p99)),
      }));
      const cpu = runs.map((all) => mean(all.map((run) => run.cpuMicros)));
      for (const [i, { target }] of servers.entries()) {
        console.log(`${formatFigures(target.name, figures[i]!, i === 0 ? undefined : figures[0])}   server CPU ${Math.round(cpu[i]!)} µs/call`);
      }
      const ratio = figures[1]!.rps / figures[2]!.rps;
      const perRound = runs[1]!.map((run, round) => (run.figures.rps / runs[2]![round]!.figures.rps).toFixed(1)).join(', ');
      console.log(`  floor: ${tool} at least 10x the SDK server's throughput: ${ratio >= 10 ? 'met' : 'NOT met'} (${ratio.toFixed(1)}x; rounds: ${perRound})`);
      console.log(`  server CPU per call: the SDK server spends ${(cpu[2]! / cpu[1]!).toFixed(1)}x what MarketKit does`);
      await stopChild(bare.child);
    }
  } finally {
    await Promise.all([ours, sdk, ...bares].map((server) => stopChild(server.child)));
  }
}

await main();
