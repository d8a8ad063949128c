/**
 * REST on PostgreSQL against the server a user would write instead (Fastify + node-postgres,
 * bench/fastify-postgres.ts), SQLite and bare node:http in the same run (issues 21 and 31):
 * authenticated GET /assets/{id} of one listing, the same over all 10,000 listings in turn, GET
 * /assets?limit=50 and POST /assets, as a seller with 10,000 listings, on SQLite, on PostgreSQL in
 * strict mode (the default: the version rows summed per request), on PostgreSQL with
 * `maxStalenessMs: 1000` (LISTEN/NOTIFY and a poll), and on the Fastify peer. Besides throughput, what each costs per request: the server's CPU,
 * the PostgreSQL cluster's CPU (all its processes) and the statements sent to it (each a round trip).
 *
 *   npx tsx bench/rest-postgres.bench.ts [--seconds 3] [--rounds 3] [--connections 10] [--cases get,turn,page,post]
 *     [--profile <dir>]
 *
 * With --profile, each server writes a CPU profile of its serving (from after its warm-up until it
 * is stopped) to <dir>/<sqlite|pg-strict|pg-bounded|fastify-pg>.cpuprofile.
 *
 * PostgreSQL is a throwaway cluster started here (test/fixtures/postgres.ts: initdb in a temporary
 * directory, fsync on, as the `postgres` user when run as root) and removed at the end, also on an
 * error or Ctrl-C. Each server is a child process on 127.0.0.1; autocannon loads it from this
 * process. Per case and round the baseline and the three servers are loaded in turns (the order
 * rotating from round to round), so that a neighbour's load drifts over all of them alike.
 * The floors checked: MarketKit on PostgreSQL strict ahead of the Fastify peer in every case (each
 * printed met or NOT met), and a cached GET on PostgreSQL strict at least half SQLite's throughput.
 */
import './help.js';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuSeconds, load, startCpuProfile, responseBytes, serveBareJson, startChild, stopChild, type Figures, type Target } from './lib.js';

const listings = 10_000;
const maxStalenessMs = 1000;
const script = fileURLToPath(import.meta.url);

type Kind = 'sqlite' | 'pg-strict' | 'pg-bounded' | 'fastify-pg';
const kinds: Kind[] = ['sqlite', 'pg-strict', 'pg-bounded', 'fastify-pg'];
const label: Record<Kind, string> = { sqlite: 'SQLite', 'pg-strict': 'PostgreSQL strict', 'pg-bounded': `PostgreSQL maxStalenessMs ${maxStalenessMs}`, 'fastify-pg': 'Fastify + node-postgres' };

interface Served {
  url: string;
  token: string;
  assetId: string;
  assetIds: string[];
  /** GET it for the counters below: requests handled, statements sent to PostgreSQL, CPU µs of this process. */
  statsUrl: string;
}

interface Stats {
  requests: number;
  statements: number;
  cpuMicros: number;
}

/**
 * Child: the marketplace on SQLite (seeded here, like bench/rest.bench.ts) or on the seeded
 * PostgreSQL database at `url`, memory blobs and memory rate limits, and a second little server
 * on another port that tells what it counted.
 */
async function serveMarketKit(kind: Kind, url: string | undefined, dir: string | undefined): Promise<Partial<Served>> {
  const counted = { requests: 0, statements: 0 };
  if (kind !== 'sqlite') {
    // Every statement the adapter sends goes through Client#query (the pool's too): count them.
    const pg = (await import('pg')).default;
    const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
    (pg.Client.prototype as { query: unknown }).query = function (this: unknown, ...args: unknown[]) {
      counted.statements++;
      return query.apply(this, args);
    };
  }
  if (kind === 'fastify-pg') {
    const { serveFastifyPostgres } = await import('./fastify-postgres.js');
    process.once('SIGTERM', () => process.exit(0));
    const { server, ...served } = await serveFastifyPostgres(url!, listings);
    server.on('request', () => counted.requests++);
    return { ...served, statsUrl: await serveStats(counted) };
  }
  const { memoryBlobs } = await import('../adapters/memory/index.js');
  const { serve } = await import('../bindings/node/index.js');
  const { createMarketplace } = await import('../core/marketplace.js');
  let storage: import('../core/ports/storage.js').StoragePort;
  // The SQLite child seeds its own database; a PostgreSQL child's is a copy of the one the parent
  // seeded, and the parent keeps its token and ids (given to the warm-up below in a variable).
  process.once('SIGTERM', () => process.exit(0));
  let seeded: Partial<Pick<Served, 'token' | 'assetId' | 'assetIds'>> = {};
  if (kind === 'sqlite') {
    const { sqliteStorage } = await import('../adapters/sqlite/index.js');
    const { seedSeller } = await import('./seed.js');
    // The directory is the parent's, which removes it even when it has to kill this process.
    const path = join(dir!, 'marketkit.db');
    // Seeding commits 10,000 times: without an fsync each, then the server reopens with the default (FULL).
    const seeding = await sqliteStorage({ path, synchronous: 'normal' });
    seeded = await seedSeller(seeding, listings);
    await seeding.close();
    storage = await sqliteStorage({ path });
  } else {
    const { postgresStorage } = await import('../adapters/postgres/index.js');
    storage = await postgresStorage({ url: url!, ...(kind === 'pg-bounded' ? { maxStalenessMs } : {}) });
  }
  const room = { limit: 1e9, windowSeconds: 60 };
  const marketplace = createMarketplace({
    storage,
    blobs: memoryBlobs(),
    rateLimits: { read: room, write: room, upload: room },
    // autocannon hangs up on the requests in flight when a run ends: not a failure of the server.
    onError: (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') console.error('bench server error:', error);
    },
  });
  await warmUp(marketplace, { ...seeded, ...(kind === 'sqlite' ? {} : JSON.parse(process.env.MARKETKIT_BENCH_WARM_UP!)) } as Required<typeof seeded>, kind);
  const handle = marketplace.handle;
  marketplace.handle = (request) => {
    counted.requests++;
    return handle(request);
  };
  const running = await serve(marketplace, { port: 0, host: '127.0.0.1' });
  return { url: running.url, ...seeded, statsUrl: await serveStats(counted) };
}

/** A little server on another port that tells what the child counted, with its CPU time. */
async function serveStats(counted: { requests: number; statements: number }): Promise<string> {
  const stats = createServer((_req, res) => {
    const cpu = process.cpuUsage();
    res.end(JSON.stringify({ ...counted, cpuMicros: cpu.user + cpu.system } satisfies Stats));
  });
  await new Promise<void>((resolve) => stats.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(stats.address() as AddressInfo).port}/`;
}

/**
 * The three requests through `marketplace.handle()` in process, a few thousand times, before the
 * server serves: a server that has just started runs its path cold (the SQLite one would be warm
 * from seeding, the PostgreSQL ones not), and autocannon's 1-second warm-up is not enough for that.
 */
async function warmUp(marketplace: import('../core/marketplace.js').Marketplace, seeded: { token: string; assetId: string; assetIds: string[] }, kind: Kind): Promise<void> {
  const headers: Record<string, string> = { authorization: `Bearer ${seeded.token}`, host: '127.0.0.1', 'content-type': 'application/json' };
  const call = async (method: string, target: string, body: string | null) => {
    const bytes = body === null ? null : new TextEncoder().encode(body);
    const response = await marketplace.handle({
      method,
      target,
      header: (name: string) => headers[name] ?? (name === 'content-length' && bytes ? String(bytes.byteLength) : undefined),
      body: bytes && (async function* () {
        yield bytes;
      })(),
    });
    if (response.status >= 300) throw new Error(`warm-up ${method} ${target} answered ${response.status}`);
  };
  for (let i = 0; i < 3000; i++) await call('GET', `/api/v1/assets/${seeded.assetId}`, null);
  for (let i = 0; i < 3000; i++) await call('GET', `/api/v1/assets/${seeded.assetIds[i % seeded.assetIds.length]}`, null);
  for (let i = 0; i < 300; i++) await call('GET', '/api/v1/assets?limit=50', null);
  for (let i = 0; i < 300; i++) await call('POST', '/api/v1/assets', JSON.stringify({ title: 'Bench Pack', slug: `warm-up-${kind}-${i}`, tags: ['bench'] }));
}

/** The postmaster of the cluster listening on `port`: the postgres process started with `-p <port>`. */
function findPostmaster(port: number): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const p = args.indexOf('-p');
      if (args[0]?.endsWith('postgres') && p > 0 && args[p + 1] === String(port)) return Number(entry);
    } catch {}
  }
  return null;
}

/**
 * CPU seconds of the whole cluster: the postmaster, its living children (backends, writer, WAL
 * writer, ...) and, through the postmaster's own counters, the children that have exited.
 */
function clusterCpuSeconds(postmaster: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // After "pid (comm) ": state, ppid, ... utime [11], stime [12], cutime [13], cstime [14].
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    if (Number(entry) === postmaster) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    else if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

/** One case's figures on one server, with what each request cost. */
interface Measured extends Figures {
  /** Server CPU per request (µs): the MarketKit process, or the bare server. */
  serverMicros: number;
  /** PostgreSQL's CPU per request (µs), all of the cluster; 0 for SQLite and bare. */
  databaseMicros: number;
  /** Statements sent to PostgreSQL per request (each one round trip at least). */
  statements: number;
}

const mean = (all: Measured[]): Measured => {
  const average = (pick: (m: Measured) => number) => all.reduce((sum, m) => sum + pick(m), 0) / all.length;
  return {
    rps: average((m) => m.rps),
    p50: average((m) => m.p50),
    p99: average((m) => m.p99),
    serverMicros: average((m) => m.serverMicros),
    databaseMicros: average((m) => m.databaseMicros),
    statements: average((m) => m.statements),
  };
};

async function main() {
  const { values } = parseArgs({
    options: {
      serve: { type: 'string' },
      url: { type: 'string' },
      dir: { type: 'string' },
      bytes: { type: 'string' },
      // Three rounds of 3 s by default, more than the other benches: PostgreSQL's figures move more on a shared machine.
      seconds: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      /** Only some of the cases: `--cases get,turn,page,post` (all by default). */
      cases: { type: 'string', default: 'get,turn,page,post' },
      /** A directory: each server writes a CPU profile of its serving there (<kind>.cpuprofile). */
      profile: { type: 'string' },
    },
  });
  if (values.serve === 'baseline') {
    console.log(JSON.stringify({ url: await serveBareJson(Number(values.bytes)) }));
    return;
  }
  if (values.serve) {
    const served = await serveMarketKit(values.serve as Kind, values.url, values.dir);
    if (values.profile) {
      const stopProfile = await startCpuProfile(values.profile);
      // In place of the plain exit on SIGTERM set while serving started: the profile is written first.
      process.removeAllListeners('SIGTERM');
      process.once('SIGTERM', async () => {
        await stopProfile();
        process.exit(0);
      });
    }
    console.log(JSON.stringify(served));
    return;
  }

  // Ctrl-C or a kill: exit through 'exit', where the fixture stops the cluster and lib kills the children.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  const options = { seconds: Number(values.seconds), connections: Number(values.connections) };
  const rounds = Number(values.rounds);
  if (values.profile) mkdirSync(values.profile, { recursive: true });
  const { startPostgres } = await import('../test/fixtures/postgres.js');
  const { postgresStorage } = await import('../adapters/postgres/index.js');
  const { seedSeller } = await import('./seed.js');
  const sqliteDir = mkdtempSync(join(tmpdir(), 'marketkit-bench-'));
  process.once('exit', () => rmSync(sqliteDir, { recursive: true, force: true }));
  const cluster = await startPostgres();
  const servers = new Map<Kind, Awaited<ReturnType<typeof startChild<Served>>>>();
  try {
    const postmaster = findPostmaster(cluster.port);
    // Seed once, without waiting for a flush per commit (the servers' databases are copies, with the server's fsync and synchronous_commit on).
    const seededUrl = await cluster.createDatabase();
    const seeding = await postgresStorage({ url: `${seededUrl}?options=${encodeURIComponent('-c synchronous_commit=off')}` });
    const seed = await seedSeller(seeding, listings);
    await seeding.close();
    // A PostgreSQL child warms up with the seed's token and ids (all 10,000 are too many for one variable: the first 2,000).
    process.env.MARKETKIT_BENCH_WARM_UP = JSON.stringify({ ...seed, assetIds: seed.assetIds.slice(0, 2000) });
    for (const kind of kinds) {
      // The Fastify peer makes and seeds a database of its own, with its own schema.
      const database = kind === 'sqlite' ? [] : ['--url', kind === 'fastify-pg' ? await cluster.createDatabase() : await cluster.createDatabase({ template: seededUrl })];
      const profile = values.profile ? ['--profile', join(resolve(values.profile), `${kind}.cpuprofile`)] : [];
      const server = await startChild<Served>(script, ['--serve', kind, ...(kind === 'sqlite' ? ['--dir', sqliteDir] : database), ...profile]);
      servers.set(kind, kind === 'sqlite' || kind === 'fastify-pg' ? server : { ...server, info: { ...seed, ...server.info } });
    }

    const stats = async (kind: Kind): Promise<Stats> => (await fetch(servers.get(kind)!.info.statsUrl)).json() as Promise<Stats>;
    /** A load run of one server and what its requests cost. */
    const measure = async (kind: Kind, target: Target): Promise<Measured> => {
      const before = await stats(kind);
      const database = postmaster === null ? NaN : clusterCpuSeconds(postmaster);
      const figures = await load(target, options);
      const after = await stats(kind);
      const requests = after.requests - before.requests;
      return {
        ...figures,
        serverMicros: (after.cpuMicros - before.cpuMicros) / requests,
        databaseMicros: kind === 'sqlite' ? 0 : postmaster === null ? NaN : ((clusterCpuSeconds(postmaster) - database) * 1e6) / requests,
        statements: (after.statements - before.statements) / requests,
      };
    };
    /** The same for the bare server: its CPU from /proc, its requests counted as the warm-up's plus the run's at the measured rate. */
    const measureBare = async (target: Target, pid: number): Promise<Measured> => {
      const before = cpuSeconds(pid);
      const figures = await load(target, options);
      const after = cpuSeconds(pid);
      const serverMicros = before === null || after === null ? NaN : ((after - before) * 1e6) / (figures.rps * (options.seconds + 1));
      return { ...figures, serverMicros, databaseMicros: 0, statements: 0 };
    };

    const cases = ['GET /assets/{id}', 'GET /assets/{id}, all 10,000 in turn', 'GET /assets?limit=50', 'POST /assets'] as const;
    type Case = (typeof cases)[number];
    const targetFor = (name: Case, kind: Kind): Target => {
      const served = servers.get(kind)!.info;
      const headers = { authorization: `Bearer ${served.token}` };
      const api = `${served.url}/api/v1`;
      if (name === 'GET /assets/{id}') return { name: `${kind} ${name}`, url: `${api}/assets/${served.assetId}`, method: 'GET', headers };
      if (name === 'GET /assets?limit=50') return { name: `${kind} ${name}`, url: `${api}/assets?limit=50`, method: 'GET', headers };
      if (name === 'POST /assets') {
        let created = 0;
        const prefix = `bench-${kind}-${Math.random().toString(36).slice(2, 8)}`;
        return {
          name: `${kind} ${name}`,
          url: `${api}/assets`,
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          nextBody: () => JSON.stringify({ title: 'Bench Pack', slug: `${prefix}-${++created}`, tags: ['bench'] }),
        };
      }
      // Every request another listing: more listings than the read cache keeps, so each one is read from storage.
      let turn = 0;
      return {
        name: `${kind} ${name}`,
        url: `${api}/assets/${served.assetId}`,
        method: 'GET',
        headers,
        nextPath: () => `/api/v1/assets/${served.assetIds[turn++ % served.assetIds.length]}`,
      };
    };

    const chosen = values.cases.split(',');
    const short: Record<Case, string> = { 'GET /assets/{id}': 'get', 'GET /assets/{id}, all 10,000 in turn': 'turn', 'GET /assets?limit=50': 'page', 'POST /assets': 'post' };
    const rows: { name: Case; bytes: number; baseline: Measured; figures: Map<Kind, Measured>; rounds: Map<Kind | 'bare', number[]> }[] = [];
    for (const name of cases.filter((c) => chosen.includes(short[c]))) {
      const targets = new Map(kinds.map((kind) => [kind, targetFor(name, kind)] as const));
      const bytes = await responseBytes(targets.get('sqlite')!);
      const bare = await startChild<{ url: string }>(script, ['--serve', 'baseline', '--bytes', String(bytes)]);
      const runs = new Map<Kind | 'bare', Measured[]>();
      try {
        const turns: (Kind | 'bare')[] = ['bare', ...kinds];
        for (let round = 0; round < rounds; round++) {
          // The order rotates from round to round, so that no server always follows the same one.
          for (let i = 0; i < turns.length; i++) {
            const who = turns[(i + round) % turns.length]!;
            const target = targets.get(who === 'bare' ? 'sqlite' : who)!;
            const result = who === 'bare' ? await measureBare({ ...target, name: `bare ${bytes} B`, url: bare.info.url }, bare.child.pid!) : await measure(who, target);
            runs.set(who, [...(runs.get(who) ?? []), result]);
          }
        }
      } finally {
        await stopChild(bare.child);
      }
      rows.push({ name, bytes, baseline: mean(runs.get('bare')!), figures: new Map(kinds.map((kind) => [kind, mean(runs.get(kind)!)] as const)),
        rounds: new Map([...runs].map(([who, all]) => [who, all.map((m) => m.rps)] as const)),
      });
    }

    const load1 = (await import('node:os')).loadavg()[0]!.toFixed(1);
    console.log(
      `REST on PostgreSQL and SQLite, Node ${process.version}: a seller with ${listings} listings, ${options.connections} connections, ` +
        `${rounds} x ${options.seconds} s per server and case, in turns (load average ${load1} at the end)`,
    );
    const us = (n: number) => (Number.isNaN(n) ? '?' : n.toFixed(0));
    const each = (all: number[]) => ` (rounds: ${all.map((n) => Math.round(n)).join(', ')})`;
    for (const { name, bytes, baseline, figures, rounds: perRound } of rows) {
      console.log(`  ${name}`);
      console.log(`    ${`bare node:http, ${bytes} B JSON`.padEnd(34)} ${Math.round(baseline.rps).toString().padStart(7)} req/s   p99 ${baseline.p99.toFixed(1).padStart(5)} ms   server CPU ${us(baseline.serverMicros)} µs/request${each(perRound.get('bare')!)}`);
      const sqlite = figures.get('sqlite')!;
      for (const kind of kinds) {
        const f = figures.get(kind)!;
        const cost = kind === 'sqlite' ? `server CPU ${us(f.serverMicros)} µs/request` : `server CPU ${us(f.serverMicros)} + PostgreSQL ${us(f.databaseMicros)} µs/request, ${f.statements.toFixed(2)} statements/request`;
        const ofSqlite = kind === 'sqlite' ? '' : `, ${(f.rps / sqlite.rps).toFixed(2)} of SQLite`;
        console.log(
          `    ${label[kind].padEnd(34)} ${Math.round(f.rps).toString().padStart(7)} req/s   p99 ${f.p99.toFixed(1).padStart(5)} ms   ${(f.rps / baseline.rps).toFixed(2)} of bare${ofSqlite}; ${cost}${each(perRound.get(kind)!)}`,
        );
      }
    }
    // The floor of issue 31: MarketKit on PostgreSQL strict ahead of the Fastify + node-postgres peer in every case.
    for (const { name, figures } of rows) {
      const ratio = figures.get('pg-strict')!.rps / figures.get('fastify-pg')!.rps;
      console.log(`  floor: PostgreSQL strict ${name} ahead of Fastify + node-postgres: ${ratio > 1 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}x)`);
    }
    const cached = rows.find((r) => r.name === 'GET /assets/{id}')?.figures;
    if (!cached) return;
    const strict = cached.get('pg-strict')!;
    const bounded = cached.get('pg-bounded')!;
    console.log(
      `  Cost of strict mode over maxStalenessMs, per cached GET: ${(strict.statements - bounded.statements).toFixed(2)} statements, ` +
        `${us(strict.serverMicros - bounded.serverMicros)} µs of server CPU, ${us(strict.databaseMicros - bounded.databaseMicros)} µs of PostgreSQL CPU`,
    );
    const floor = strict.rps / cached.get('sqlite')!.rps;
    console.log(`  Floor, a cached GET on PostgreSQL strict against SQLite: ${floor.toFixed(2)} (at least 0.5: ${floor >= 0.5 ? 'met' : 'MISSED'})`);
  } finally {
    for (const server of servers.values()) await stopChild(server.child);
    await cluster.stop();
  }
}

await main();
