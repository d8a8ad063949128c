/**
 * MCP tools/call throughput: get_asset on MarketKit's /api/mcp against the official SDK's own
 * server (McpServer on its Streamable HTTP server transport, stateless, JSON responses, one tool
 * that returns the same JSON), both on Node and in the same run.
 *
 *   npx tsx bench/mcp.bench.ts [--seconds 4] [--rounds 3] [--connections 32]
 *
 * Each server runs in its own child process on 127.0.0.1 (one core each for server and load
 * generator on a 2-core machine); autocannon drives it from this process. The SDK server is given
 * every advantage: no authentication, no storage, a constant result. Ours authenticates the token,
 * charges the rate limiter and reads the listing from the memory store on every call.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

const accept = 'application/json, text/event-stream';

function toolCall(assetId: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_asset', arguments: { asset_id: assetId } } });
}

/** Child: MarketKit on memory adapters with one seller, a token and a listing with a file. */
async function serveMarketKit(): Promise<Target> {
  const { memoryBlobs, memoryStorage } = await import('../adapters/memory/index.js');
  const { serve } = await import('../bindings/node/index.js');
  const { createMarketplace } = await import('../core/marketplace.js');
  // The limiter would refuse a load test; give it room so every call does the full work.
  const room = { limit: 1e9, windowSeconds: 60 };
  const marketplace = createMarketplace({ storage: memoryStorage(), blobs: memoryBlobs(), rateLimits: { read: room, write: room, upload: room } });
  const seller = await marketplace.admin.createAccount({ username: 'bench', seller_status: 'approved', payouts_connected: true });
  const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 'bench' });
  const running = await serve(marketplace, { port: 0, host: '127.0.0.1' });
  const headers = { 'content-type': 'application/json', accept, authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' };
  const create = await fetch(`${running.url}/api/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_asset', arguments: { title: 'Bench Pack', slug: 'bench-pack', tags: ['bench'] } } }),
  });
  const assetId: string = (await create.json()).result.structuredContent.id;
  return { name: 'MarketKit /api/mcp', url: `${running.url}/api/mcp`, headers, body: toolCall(assetId) };
}

/** Child: the SDK's stateless server, as its documentation builds it (a server and a transport per request). */
async function serveSdk(asset: unknown): Promise<Target> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { z } = await import('zod');
  const text = JSON.stringify(asset);
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const server = new McpServer({ name: 'sdk-bench', version: '1.0.0' });
    server.registerTool('get_asset', { description: 'One listing by asset_id', inputSchema: { asset_id: z.string() } }, async () => ({
      content: [{ type: 'text' as const, text }],
      structuredContent: asset as Record<string, unknown>,
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
  return { name: 'SDK McpServer (stateless)', url, headers, body: toolCall((asset as { id: string }).id) };
}

/** Starts this script as a child serving one side; resolves with what it printed. */
function startChild(args: string[]): Promise<{ child: ChildProcess; target: Target }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, target: JSON.parse(line) as Target }));
  });
}

async function check(target: Target): Promise<unknown> {
  const response = await fetch(target.url, { method: 'POST', headers: target.headers, body: target.body });
  const answer = await response.json();
  if (response.status !== 200 || !answer.result?.structuredContent?.id) throw new Error(`${target.name} did not answer the call: ${JSON.stringify(answer)}`);
  return answer.result.structuredContent;
}

/** CPU seconds a process has used (user + system), from /proc on Linux; null elsewhere. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return null;
  }
}

/**
 * One load run. Besides throughput, the server's CPU time per call: on a machine shared with other
 * work, throughput moves with the neighbours' load, the CPU a call costs much less.
 */
async function load(target: Target, pid: number, seconds: number, connections: number) {
  const before = cpuSeconds(pid);
  const result = await autocannon({ url: target.url, method: 'POST', headers: target.headers, body: target.body, connections, duration: seconds });
  const after = cpuSeconds(pid);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  const cpuMicros = before === null || after === null ? NaN : ((after - before) * 1e6) / result.requests.total;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuMicros };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const { values } = parseArgs({
    options: {
      serve: { type: 'string' },
      asset: { type: 'string' },
      seconds: { type: 'string', default: '4' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '32' },
    },
  });
  if (values.serve) {
    const target = values.serve === 'sdk' ? await serveSdk(JSON.parse(values.asset!)) : await serveMarketKit();
    console.log(JSON.stringify(target));
    return;
  }
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  const rounds = Number(values.rounds);
  const ours = await startChild(['--serve', 'marketkit']);
  const asset = await check(ours.target);
  const sdk = await startChild(['--serve', 'sdk', '--asset', JSON.stringify(asset)]);
  try {
    const sdkAsset = await check(sdk.target);
    if (JSON.stringify(sdkAsset) !== JSON.stringify(asset)) throw new Error('the two servers do not return the same JSON');
    const servers = [ours, sdk];
    const targets = servers.map((server) => server.target);
    for (const { target, child } of servers) await load(target, child.pid!, 1, connections); // warm-up: JIT, connection pools
    // Alternating rounds, so that a neighbour's load on a shared machine hits both sides alike.
    const runs: Awaited<ReturnType<typeof load>>[][] = servers.map(() => []);
    for (let round = 0; round < rounds; round++) {
      for (const [i, { target, child }] of servers.entries()) runs[i]!.push(await load(target, child.pid!, seconds, connections));
    }
    console.log(`tools/call get_asset, ${connections} connections, ${rounds} alternating rounds of ${seconds} s, Node ${process.version}`);
    for (const [i, target] of targets.entries()) {
      const rps = runs[i]!.map((run) => run.rps);
      const line = `median ${Math.round(median(rps))} req/s (rounds: ${rps.map(Math.round).join(', ')})`;
      const cpu = median(runs[i]!.map((r) => r.cpuMicros));
      console.log(`  ${target.name.padEnd(28)} ${line}   p50 ${median(runs[i]!.map((r) => r.p50))} ms   p99 ${median(runs[i]!.map((r) => r.p99))} ms   server CPU ${Math.round(cpu)} µs/call`);
    }
    const cpuRatio = median(runs[1]!.map((r) => r.cpuMicros)) / median(runs[0]!.map((r) => r.cpuMicros));
    const ratios = runs[0]!.map((run, round) => run.rps / runs[1]![round]!.rps);
    console.log(`  ratio: ${(median(runs[0]!.map((r) => r.rps)) / median(runs[1]!.map((r) => r.rps))).toFixed(1)}x the SDK server (per round: ${ratios.map((r) => r.toFixed(1)).join(', ')}; target 10x)`);
    console.log(`  server CPU per call: the SDK server spends ${cpuRatio.toFixed(1)}x what MarketKit does`);
  } finally {
    ours.child.kill();
    sdk.child.kill();
  }
}

await main();
