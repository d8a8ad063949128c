/**
 * MCP tools/call throughput on Node: get_asset on MarketKit's /api/mcp against the official SDK's
 * own server (McpServer on its Streamable HTTP server transport, stateless, JSON responses, one
 * tool that returns the same JSON), with bare node:http answering as many bytes as the ceiling.
 *
 *   npx tsx bench/mcp.bench.ts [--seconds 3] [--rounds 5] [--connections 10]
 *
 * Every server is a child process on 127.0.0.1; autocannon loads it from this process, the three
 * in turns, so that all see the same machine. The SDK server is given every advantage: no
 * authentication, no storage, a constant result. MarketKit authenticates the token, charges the
 * rate limiter and reads the listing from the memory store on every call.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatFigures, load, responseBytes, serveBareJson, startChild, stopChild, type Figures, type Target } from './lib.js';

const script = fileURLToPath(import.meta.url);
const accept = 'application/json, text/event-stream';

function toolCall(assetId: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_asset', arguments: { asset_id: assetId } } });
}

/** Child: MarketKit on memory adapters with one seller, a token and a listing. */
async function serveMarketKit(): Promise<Target> {
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
  return { name: 'MarketKit /api/mcp', url: `${running.url}/api/mcp`, method: 'POST', headers, body: toolCall(assetId) };
}

/** Child: the SDK's stateless server as its documentation builds it, a server and a transport per request. */
async function serveSdk(asset: Record<string, unknown>): Promise<Target> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { z } = await import('zod');
  const text = JSON.stringify(asset);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const server = new McpServer({ name: 'sdk-bench', version: '1.0.0' });
    server.registerTool('get_asset', { description: 'One listing by asset_id', inputSchema: { asset_id: z.string() } }, async () => ({
      content: [{ type: 'text' as const, text }],
      structuredContent: asset,
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
  return { name: 'SDK McpServer, stateless', url, method: 'POST', headers, body: toolCall(asset.id as string) };
}

/** The listing a server returns, after checking that the call succeeded. */
async function structuredContentOf(target: Target): Promise<Record<string, unknown>> {
  const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body ?? null });
  const answer = await response.json();
  if (response.status !== 200 || !answer.result?.structuredContent?.id) throw new Error(`${target.name} did not answer the call: ${JSON.stringify(answer)}`);
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
    },
  });
  if (values.serve) {
    const served = {
      marketkit: () => serveMarketKit(),
      sdk: () => serveSdk(JSON.parse(values.asset!)),
      baseline: async () => ({ url: await serveBareJson(Number(values.bytes)) }),
    }[values.serve];
    if (!served) throw new Error(`--serve takes marketkit, sdk or baseline, not ${values.serve}`);
    console.log(JSON.stringify(await served()));
    return;
  }
  const options = { seconds: Number(values.seconds), connections: Number(values.connections) };
  const rounds = Number(values.rounds);
  const ours = await startChild<Target>(script, ['--serve', 'marketkit']);
  const asset = await structuredContentOf(ours.info);
  const sdk = await startChild<Target>(script, ['--serve', 'sdk', '--asset', JSON.stringify(asset)]);
  const bytes = await responseBytes(ours.info);
  const bare = await startChild<{ url: string }>(script, ['--serve', 'baseline', '--bytes', String(bytes)]);
  try {
    if (JSON.stringify(await structuredContentOf(sdk.info)) !== JSON.stringify(asset)) throw new Error('the two servers do not return the same JSON');
    const servers = [
      { target: { ...ours.info, name: `bare node:http, ${bytes} B JSON`, url: bare.info.url }, pid: bare.child.pid! },
      { target: ours.info, pid: ours.child.pid! },
      { target: sdk.info, pid: sdk.child.pid! },
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
    console.log(`MCP tools/call get_asset on Node ${process.version}: ${options.connections} connections, ${rounds} x ${options.seconds} s per server, in turns`);
    for (const [i, { target }] of servers.entries()) {
      console.log(`${formatFigures(target.name, figures[i]!, i === 0 ? undefined : figures[0])}   server CPU ${Math.round(cpu[i]!)} µs/call`);
    }
    const ratio = figures[1]!.rps / figures[2]!.rps;
    const perRound = runs[1]!.map((run, round) => (run.figures.rps / runs[2]![round]!.figures.rps).toFixed(1)).join(', ');
    console.log(`  MarketKit against the SDK server: ${ratio.toFixed(1)}x the throughput (rounds: ${perRound}; target 10: ${ratio >= 10 ? 'met' : 'MISSED'})`);
    console.log(`  server CPU per call: the SDK server spends ${(cpu[2]! / cpu[1]!).toFixed(1)}x what MarketKit does`);
  } finally {
    await Promise.all([ours, sdk, bare].map((server) => stopChild(server.child)));
  }
}

await main();
