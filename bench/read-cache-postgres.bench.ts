/**
 * What the read cache's version costs on PostgreSQL, and why it is what it is (issue 21, point 2;
 * docs/performance.md, "The read cache on PostgreSQL"). On a throwaway cluster (test/fixtures/postgres.ts):
 *
 * 1. One version question, sequential and 32 at once on a pool of 10: `SELECT pg_current_snapshot()`
 *    against the sum of the sixteen rows of `marketkit_changes` (what strict mode asks).
 * 2. How often each stays the same across one request that takes a rate-limit token (an UPSERT of
 *    an UNLOGGED table, as a limiter on the database does): the snapshot moves with any transaction
 *    of the cluster that writes, the version rows only with the listing storage's writes.
 * 3. Write throughput with 16 concurrent updateAsset loops (one listing each) through the adapter:
 *    the version's triggers dropped, one version row for all, sixteen rows (as shipped).
 * 4. Cached GET /assets/{id} over HTTP (autocannon, 10 connections, each server a child process):
 *    SQLite, PostgreSQL strict, PostgreSQL with maxStalenessMs, in turns.
 *
 *   npx tsx bench/read-cache-postgres.bench.ts [--seconds 3] [--rounds 2] [--skip-http]
 */
import './help.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatFigures, load, startChild, stopChild, type Figures } from './lib.js';

const script = fileURLToPath(import.meta.url);
const { values } = parseArgs({
  options: {
    serve: { type: 'string' },
    url: { type: 'string' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    'skip-http': { type: 'boolean', default: false },
  },
});

interface Served {
  url: string;
  token: string;
  assetId: string;
}

/** Child: the marketplace on SQLite (seeded here) or on the seeded PostgreSQL database at --url. */
async function serveMarketKit(kind: string, databaseUrl: string | undefined): Promise<Served> {
  const { memoryBlobs } = await import('../adapters/memory/index.js');
  const { serve } = await import('../bindings/node/index.js');
  const { createMarketplace } = await import('../core/marketplace.js');
  const { seedSeller } = await import('./seed.js');
  let storage;
  let seeded;
  if (kind === 'sqlite') {
    const { sqliteStorage } = await import('../adapters/sqlite/index.js');
    const dir = mkdtempSync(join(tmpdir(), 'marketkit-bench-'));
    process.once('SIGTERM', () => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
    storage = await sqliteStorage({ path: join(dir, 'marketkit.db') });
    seeded = await seedSeller(storage, 100);
  } else {
    process.once('SIGTERM', () => process.exit(0));
    const { postgresStorage } = await import('../adapters/postgres/index.js');
    storage = await postgresStorage({ url: databaseUrl!, ...(kind === 'pg-bounded' ? { maxStalenessMs: 1000 } : {}) });
    seeded = await seedSeller(storage, 100);
  }
  const room = { limit: 1e9, windowSeconds: 60 };
  const marketplace = createMarketplace({
    storage,
    blobs: memoryBlobs(),
    rateLimits: { read: room, write: room, upload: room },
    onError: (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') console.error('bench server error:', error);
    },
  });
  const running = await serve(marketplace, { port: 0, host: '127.0.0.1' });
  return { url: running.url, token: seeded.token, assetId: seeded.assetId };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main() {
  const pg = (await import('pg')).default;
  const { startPostgres } = await import('../test/fixtures/postgres.js');
  const { inSchema } = await import('../test/fixtures/postgres-database.js');
  const { postgresStorage } = await import('../adapters/postgres/index.js');
  const { assetRecord, accountRecord } = await import('../conformance/ports/sample-records.js');
  const cluster = await startPostgres();
  try {
    const url = await cluster.createDatabase();
    await (await postgresStorage({ url })).close();
    // In MarketKit's schema, as its own connections are.
    const pool = new pg.Pool({ connectionString: inSchema(url), max: 10 });
    await pool.query('CREATE UNLOGGED TABLE bench_limits (key TEXT PRIMARY KEY, n BIGINT NOT NULL)');

    // 1. One question per request.
    const questions = {
      'SELECT pg_current_snapshot()': 'SELECT pg_current_snapshot()::text AS v',
      'sum of marketkit_changes (strict mode)': 'SELECT sum(version)::int8 AS version FROM marketkit_changes',
    };
    const timings = new Map<string, { sequential: number[]; concurrent: number[] }>();
    for (let round = 0; round < 3; round++) {
      for (const [name, text] of Object.entries(questions)) {
        const statement = { name: `q${name.length}`, text };
        for (let i = 0; i < 300; i++) await pool.query(statement);
        let n = 2000;
        let start = performance.now();
        for (let i = 0; i < n; i++) await pool.query(statement);
        const sequential = ((performance.now() - start) * 1000) / n;
        n = 20_000;
        let left = n;
        start = performance.now();
        await Promise.all(Array.from({ length: 32 }, async () => {
          while (left-- > 0) await pool.query(statement);
        }));
        const concurrent = n / ((performance.now() - start) / 1000);
        const entry = timings.get(name) ?? { sequential: [], concurrent: [] };
        entry.sequential.push(sequential);
        entry.concurrent.push(concurrent);
        timings.set(name, entry);
      }
    }
    console.log('1. One version question (median of 3 rounds)');
    for (const [name, t] of timings) console.log(`   ${name}: ${median(t.sequential).toFixed(0)} us one after another; ${median(t.concurrent).toFixed(0)} questions/s, 32 at once on 10 connections`);

    // 2. Does it stay the same across a request that takes a rate-limit token?
    const same = { snapshot: 0, rows: 0 };
    const requests = 1000;
    let previous = { snapshot: '', rows: '' };
    for (let i = 0; i < requests; i++) {
      const { rows } = await pool.query('SELECT pg_current_snapshot()::text AS snapshot, (SELECT sum(version)::int8 FROM marketkit_changes) AS rows');
      if (rows[0].snapshot === previous.snapshot) same.snapshot++;
      if (rows[0].rows === previous.rows) same.rows++;
      previous = rows[0];
      await pool.query("INSERT INTO bench_limits (key, n) VALUES ('caller', 1) ON CONFLICT (key) DO UPDATE SET n = bench_limits.n + 1");
    }
    console.log(`2. Of ${requests} requests that each take a rate-limit token (UNLOGGED UPSERT), the version was the same as the previous one's for: pg_current_snapshot() ${same.snapshot}, marketkit_changes ${same.rows}`);

    // 3. Write throughput, 16 writers.
    const storage = await postgresStorage({ url, poolSize: 16 });
    const owner = accountRecord();
    await storage.insertAccount(owner);
    const assets = Array.from({ length: 16 }, () => assetRecord(owner.id));
    for (const asset of assets) await storage.createAsset(asset);
    const triggers = (await pool.query("SELECT tgname, tgrelid::regclass::text AS t FROM pg_trigger WHERE tgname LIKE '%\\_changed' OR tgname = 'tokens_updated'")).rows as { tgname: string; t: string }[];
    const shipped = (await pool.query("SELECT pg_get_functiondef('marketkit_bump_changes'::regproc) AS def")).rows[0].def as string;
    const variants: Record<string, () => Promise<void>> = {
      'no version triggers': async () => {
        for (const { tgname, t } of triggers) await pool.query(`ALTER TABLE ${t} DISABLE TRIGGER ${tgname}`);
      },
      'one version row for all': async () => {
        for (const { tgname, t } of triggers) await pool.query(`ALTER TABLE ${t} ENABLE TRIGGER ${tgname}`);
        await pool.query(shipped.replace(/WHERE shard = pg_backend_pid\(\) % 16/, 'WHERE shard = 0'));
      },
      'sixteen rows, pid % 16 (shipped)': async () => {
        for (const { tgname, t } of triggers) await pool.query(`ALTER TABLE ${t} ENABLE TRIGGER ${tgname}`);
        await pool.query(shipped);
      },
    };
    const writes = new Map<string, number[]>();
    for (let round = 0; round < 3; round++) {
      for (const [name, setUp] of Object.entries(variants)) {
        await setUp();
        const ms = 3000;
        const end = performance.now() + ms;
        let done = 0;
        await Promise.all(
          assets.map(async (asset) => {
            let revision = (await storage.getAsset(asset.id))!.revision;
            while (performance.now() < end) {
              const result = await storage.updateAsset(asset.id, revision, { title: `t${done}`, updated_at: new Date().toISOString() });
              if (result.outcome !== 'updated') throw new Error(result.outcome);
              revision = result.asset.revision;
              done++;
            }
          }),
        );
        writes.set(name, [...(writes.get(name) ?? []), done / (ms / 1000)]);
      }
    }
    await variants['sixteen rows, pid % 16 (shipped)']!();
    console.log('3. updateAsset, 16 concurrent writers on 16 listings (median of 3 rounds of 3 s)');
    for (const [name, rates] of writes) console.log(`   ${name}: ${median(rates).toFixed(0)} writes/s (${rates.map((r) => r.toFixed(0)).join(', ')})`);
    await storage.close();
    await pool.end();

    // 4. Cached GET over HTTP.
    if (!values['skip-http']) {
      const options = { seconds: Number(values.seconds), connections: 10 };
      const kinds = ['sqlite', 'pg-strict', 'pg-bounded'];
      const servers = new Map<string, Awaited<ReturnType<typeof startChild<Served>>>>();
      for (const kind of kinds) servers.set(kind, await startChild<Served>(script, ['--serve', kind, ...(kind === 'sqlite' ? [] : ['--url', await cluster.createDatabase({ template: url })])]));
      const figures = new Map<string, Figures[]>();
      try {
        for (let round = 0; round < Number(values.rounds); round++) {
          for (const kind of kinds) {
            const { info } = servers.get(kind)!;
            const result = await load({ name: kind, url: `${info.url}/api/v1/assets/${info.assetId}`, method: 'GET', headers: { authorization: `Bearer ${info.token}` } }, options);
            figures.set(kind, [...(figures.get(kind) ?? []), result]);
          }
        }
      } finally {
        for (const server of servers.values()) await stopChild(server.child);
      }
      console.log(`4. Cached GET /assets/{id}, ${options.connections} connections, ${values.rounds} x ${options.seconds} s per server, in turns`);
      for (const [kind, runs] of figures) {
        const mean = (pick: (f: Figures) => number) => runs.reduce((sum, f) => sum + pick(f), 0) / runs.length;
        console.log('  ' + formatFigures(kind, { rps: mean((f) => f.rps), p50: mean((f) => f.p50), p99: mean((f) => f.p99) }) + ` (${runs.map((f) => f.rps.toFixed(0)).join(', ')})`);
      }
    }
  } finally {
    await cluster.stop();
  }
}

if (values.serve) console.log(JSON.stringify(await serveMarketKit(values.serve, values.url)));
else await main();
