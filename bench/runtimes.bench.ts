/**
 * MarketKit on Node, Bun and Deno, each against the same runtime's bare server: authenticated
 * GET /assets/{id} on SQLite (better-sqlite3, bun:sqlite, node:sqlite) and filesystem blobs, as a
 * seller with 10,000 listings; the baseline answers a fixed JSON body of the same size.
 *
 *   npx tsx bench/runtimes.bench.ts [--seconds 2] [--rounds 2] [--connections 10]
 *
 * Each server is a child process on 127.0.0.1 under its runtime (the real `bun` and `deno` binaries
 * of the npm packages); autocannon loads it from this Node process. Case and baseline run in turns.
 * The same file is the child: `--serve marketkit|baseline` starts a server and prints one JSON line.
 */
import './help.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

type Runtime = 'node' | 'bun' | 'deno';
const runtimes: Runtime[] = ['node', 'bun', 'deno'];
const listings = 10_000;
const script = fileURLToPath(import.meta.url);
const root = fileURLToPath(new URL('../', import.meta.url));

interface Served {
  url: string;
  token: string;
  assetId: string;
  driver: string;
  /** µs per GET by id through `marketplace.handle()` in process on the server's runtime (no HTTP, no binding). */
  coreMicros: number;
}

/** Child: the marketplace on this runtime's SQLite driver with `listings` listings, on this runtime's binding. */
async function serveMarketKit(): Promise<Served> {
  const { sqliteStorage } = await import('../adapters/sqlite/index.js');
  const { fsBlobs } = await import('../adapters/fs/index.js');
  const { createMarketplace } = await import('../core/marketplace.js');
  const { serveOnRuntime } = await import('../cli/runtime-server.js');
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-bench-'));
  process.once('SIGTERM', () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
  const path = join(dir, 'marketkit.db');
  // Seeding commits 10,000 times: without an fsync each, then the server reopens with the default.
  const seeding = await sqliteStorage({ path, synchronous: 'normal' });
  const { seedSeller } = await import('./seed.js');
  const { token, assetId } = await seedSeller(seeding, listings);
  await seeding.close();
  const storage = await sqliteStorage({ path });
  const room = { limit: 1e9, windowSeconds: 60 };
  const marketplace = createMarketplace({
    storage,
    blobs: fsBlobs({ root: join(dir, 'blobs') }),
    rateLimits: { read: room, write: room, upload: room },
    onError: (error) => {
      // autocannon hangs up on the requests in flight when a run ends: not a failure of the server.
      if ((error as { code?: string }).code !== 'ECONNRESET') console.error('bench server error:', error);
    },
  });
  const coreMicros = await timeCore(marketplace, token, assetId);
  const running = await serveOnRuntime(marketplace, { port: 0, host: '127.0.0.1' });
  return { url: running.url, token, assetId, driver: storage.driver, coreMicros };
}

/**
 * The same request through `marketplace.handle()` in process, without HTTP and without a binding:
 * wall time per request on this runtime, to tell the core's share from the server's.
 */
async function timeCore(marketplace: import('../core/marketplace.js').Marketplace, token: string, assetId: string): Promise<number> {
  const request = {
    method: 'GET',
    target: `/api/v1/assets/${assetId}`,
    header: (name: string) => (name === 'authorization' ? `Bearer ${token}` : name === 'host' ? '127.0.0.1' : undefined),
    body: null,
  };
  const run = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const response = await marketplace.handle(request);
      if (response.status !== 200) throw new Error(`core answered ${response.status}`);
    }
  };
  // The best of three: the machine's load drifts, and the first runs warm the JIT.
  await run(1_000);
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const start = performance.now();
    await run(5_000);
    best = Math.min(best, ((performance.now() - start) * 1000) / 5_000);
  }
  return best;
}

/** Child: this runtime's own server, as bare as it gets, answering a fixed JSON body of `bytes` bytes. */
async function serveBare(bytes: number): Promise<{ url: string }> {
  const filler = 'x'.repeat(Math.max(0, bytes - '{"data":""}'.length));
  const body = new TextEncoder().encode(`{"data":"${filler}"}`);
  const headers = { 'content-type': 'application/json; charset=utf-8' };
  const global = globalThis as {
    Bun?: { serve(options: { port: number; hostname: string; fetch(): Response }): { port: number } };
    Deno?: { serve(options: { port: number; hostname: string; onListen(addr: { port: number }): void }, handler: () => Response): unknown };
  };
  if (global.Bun) {
    const server = global.Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(body, { headers }) });
    return { url: `http://127.0.0.1:${server.port}/` };
  }
  if (global.Deno) {
    const deno = global.Deno;
    const port = await new Promise<number>((resolve) => deno.serve({ port: 0, hostname: '127.0.0.1', onListen: ({ port }) => resolve(port) }, () => new Response(body, { headers })));
    return { url: `http://127.0.0.1:${port}/` };
  }
  const { serveBareJson } = await import('./lib.js');
  return { url: await serveBareJson(bytes) };
}

/** The command line that runs this file on `runtime`. */
function commandFor(runtime: Runtime): string[] {
  if (runtime === 'bun') return [join(root, 'node_modules/.bin/bun'), script];
  if (runtime === 'deno') return [join(root, 'node_modules/.bin/deno'), 'run', '--unstable-sloppy-imports', '--allow-net', '--allow-read', '--allow-write', '--allow-env', script];
  return [process.execPath, '--import', 'tsx', script];
}

/** Starts this file as a server child on `runtime`; resolves with the JSON line it prints once it serves. */
function startOn<T>(runtime: Runtime, args: string[]): Promise<{ child: ChildProcess; info: T }> {
  const [command, ...prefix] = commandFor(runtime);
  const child = spawn(command!, [...prefix, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server on ${runtime} (${args.join(' ')}) exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, info: JSON.parse(line) as T }));
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      serve: { type: 'string' },
      bytes: { type: 'string' },
      seconds: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '2' },
      connections: { type: 'string', default: '10' },
    },
  });
  if (values.serve === 'marketkit') {
    console.log(JSON.stringify(await serveMarketKit()));
    return;
  }
  if (values.serve === 'baseline') {
    console.log(JSON.stringify(await serveBare(Number(values.bytes))));
    return;
  }
  const { cpuSeconds, load, responseBytes, stopChild } = await import('./lib.js');
  type Figures = Awaited<ReturnType<typeof load>> & { cpuMicros: number };
  /**
   * A load run and the server's CPU time per request (all its threads): on a shared machine
   * throughput moves with the neighbours' load, the CPU a request costs much less. The 1-second
   * warm-up is in the CPU time, counted as requests at the measured rate.
   */
  const measure = async (target: Parameters<typeof load>[0], pid: number): Promise<Figures> => {
    const before = cpuSeconds(pid);
    const figures = await load(target, options);
    const after = cpuSeconds(pid);
    return { ...figures, cpuMicros: before === null || after === null ? NaN : ((after - before) * 1e6) / (figures.rps * (options.seconds + 1)) };
  };
  const options = { seconds: Number(values.seconds), connections: Number(values.connections) };
  const rounds = Number(values.rounds);
  const mean = (all: Figures[]): Figures => {
    const average = (pick: (f: Figures) => number) => all.reduce((sum, f) => sum + pick(f), 0) / all.length;
    return { rps: average((f) => f.rps), p50: average((f) => f.p50), p99: average((f) => f.p99), cpuMicros: average((f) => f.cpuMicros) };
  };
  const rows: { runtime: Runtime; driver: string; coreMicros: Served['coreMicros']; bytes: number; figures: Figures; baseline: Figures }[] = [];
  for (const runtime of runtimes) {
    const server = await startOn<Served>(runtime, ['--serve', 'marketkit']);
    try {
      const target = {
        name: `${runtime} GET /assets/{id}`,
        url: `${server.info.url}/api/v1/assets/${server.info.assetId}`,
        method: 'GET' as const,
        headers: { authorization: `Bearer ${server.info.token}` },
      };
      const bytes = await responseBytes(target);
      const bare = await startOn<{ url: string }>(runtime, ['--serve', 'baseline', '--bytes', String(bytes)]);
      try {
        const runs: { figures: Figures; baseline: Figures }[] = [];
        for (let round = 0; round < rounds; round++) {
          const baseline = await measure({ ...target, name: `bare ${runtime}`, url: bare.info.url }, bare.child.pid!);
          runs.push({ baseline, figures: await measure(target, server.child.pid!) });
        }
        rows.push({ runtime, driver: server.info.driver, coreMicros: server.info.coreMicros, bytes, figures: mean(runs.map((r) => r.figures)), baseline: mean(runs.map((r) => r.baseline)) });
      } finally {
        await stopChild(bare.child);
      }
    } finally {
      await stopChild(server.child);
    }
  }
  const line = (name: string, f: Figures, ratio = '') =>
    `  ${name.padEnd(44)} ${Math.round(f.rps).toString().padStart(7)} req/s   p99 ${f.p99.toFixed(1).padStart(5)} ms${ratio}`;
  console.log(`Authenticated GET /assets/{id} on SQLite, a seller with ${listings} listings, ${options.connections} connections, ${rounds} x ${options.seconds} s per case and per baseline, in turns`);
  for (const { runtime, driver, coreMicros, bytes, figures, baseline } of rows) {
    console.log(line(`bare ${runtime} server, ${bytes} B JSON`, baseline, `   server CPU ${baseline.cpuMicros.toFixed(0)} µs/request`));
    console.log(
      line(
        `MarketKit on ${runtime} (${driver})`,
        figures,
        `   ${(figures.rps / baseline.rps).toFixed(2)} of bare ${runtime}; server CPU ${figures.cpuMicros.toFixed(0)} µs/request; the core alone in process ${coreMicros.toFixed(0)} µs`,
      ),
    );
  }
  const verdicts = rows.map(({ runtime, figures, baseline }) => {
    const ratio = figures.rps / baseline.rps;
    return `${runtime} ${ratio.toFixed(2)} (${ratio >= 0.6 ? 'met' : 'MISSED'})`;
  });
  console.log(`  against the same runtime's bare server, target 0.6: ${verdicts.join(', ')}`);
}

await main();
