/**
 * Lists at scale (issue #31): a seller's GET /api/v1/assets and the admin moderation queue with
 * 100,000 listings against the same with 1,000, on memory, SQLite and PostgreSQL, in process through
 * `marketplace.handle()` (no HTTP: the list's own cost). Three pages each: the first, one at offset
 * 90 %, and a cursor page (the next_cursor of the page at 90 %). Every timed request follows an
 * untimed write, so that no read cache answers it (what a client sees after any change). Each store
 * is loaded with seedListings, the bulk path, and the seeding time is printed. The floor: each page
 * at 100,000 at most 2 times its time at 1,000.
 *
 * Run: npx tsx bench/scale.bench.ts [--samples 150] [--stores memory,sqlite,postgres]
 */
import './help.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { memoryBlobs, memoryStorage } from '../adapters/memory/index.js';
import { assetRecord } from '../conformance/ports/sample-records.js';
import { createMarketplace, seedListings, type CoreRequest, type StoragePort } from '../core/index.js';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '150' }, stores: { type: 'string', default: 'memory,sqlite,postgres' } } });
const samples = Number(values.samples);
const stores = values.stores.split(',') as ('memory' | 'sqlite' | 'postgres')[];
const sizes = [1_000, 100_000] as const;
const serviceKey = 'bench-service-key-0123456789abcdef0123456789';
const floor = 2;
/** Requests before the timed ones: the JIT, the pool's connections and the store's caches warm up. */
const warmUp = 30;

const dir = mkdtempSync(join(tmpdir(), 'marketkit-scale-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
let cluster: { createDatabase(): Promise<string>; stop(): Promise<void> } | undefined;

async function open(store: (typeof stores)[number], size: number): Promise<StoragePort & { close?: () => Promise<void>; settle?: () => Promise<void> }> {
  if (store === 'memory') return memoryStorage();
  if (store === 'sqlite') return (await import('../adapters/sqlite/index.js')).sqliteStorage({ path: join(dir, `scale-${size}.db`) });
  if (!cluster) cluster = await (await import('../test/fixtures/postgres.js')).startPostgres();
  const url = await cluster.createDatabase();
  const storage = await (await import('../adapters/postgres/index.js')).postgresStorage({ url, poolSize: 2 });
  return Object.assign(storage, { settle: () => vacuum(url) });
}

/**
 * What autovacuum does to a table soon after a bulk load: statistics, and the visibility map that
 * lets an offset page skip index entries without reading their rows (an index-only scan).
 */
async function vacuum(url: string): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('VACUUM ANALYZE marketkit.assets');
  await client.end();
}

const request = (target: string, token: string): CoreRequest => ({ method: 'GET', target, header: (name) => ({ authorization: `Bearer ${token}`, host: '127.0.0.1' })[name], body: null });

/** Median milliseconds of `samples` handled requests, each after an untimed write that moves the store's version. */
async function time(marketplace: ReturnType<typeof createMarketplace>, req: CoreRequest, write: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples + warmUp; i++) {
    await write();
    const started = performance.now();
    const answer = await marketplace.handle(req);
    const took = performance.now() - started;
    if (answer.status !== 200) throw new Error(`${req.target}: ${answer.status} ${String(answer.body)}`);
    if (i >= warmUp) times.push(took);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

type Case = 'first page' | 'offset 90%' | 'cursor page';
const results = new Map<string, number>(); // `${store} ${list} ${case} ${size}` -> ms

try {
  for (const store of stores) {
    for (const size of sizes) {
      const storage = await open(store, size);
      const marketplace = createMarketplace({
        storage,
        blobs: memoryBlobs(),
        serviceKey,
        rateLimits: Object.fromEntries(['read', 'write', 'admin'].map((c) => [c, { limit: 1e9, windowSeconds: 60 }])),
      });
      const seller = await marketplace.admin.createAccount({ username: 'bench-seller' });
      const submitter = await marketplace.admin.createAccount({ username: 'bench-submitter' });
      const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 'bench' });
      const base = Date.parse('2026-01-01T00:00:00.000Z');
      const stamp = (i: number) => new Date(base + i * 1000).toISOString();
      const started = performance.now();
      await seedListings(storage, Array.from({ length: size }, (_, i) => assetRecord(seller.id, { created_at: stamp(i), updated_at: stamp(i) })));
      await seedListings(storage, Array.from({ length: size }, (_, i) => assetRecord(submitter.id, { status: 'pending', created_at: stamp(i), updated_at: stamp(i) })));
      await storage.settle?.();
      console.log(`${store}: seeded ${(2 * size).toLocaleString('en')} listings in ${((performance.now() - started) / 1000).toFixed(2)} s (seedListings)`);
      let n = 0;
      const write = () => storage.updateAccount(submitter.id, { updated_at: new Date(base + ++n).toISOString() });
      const deep = Math.floor(size * 0.9);
      for (const [list, path, auth, cursorOf] of [
        ['seller list', '/api/v1/assets?limit=50', token, (body: any) => body.pagination.next_cursor],
        ['admin queue', '/api/admin/moderation/queue?limit=50', serviceKey, (body: any) => body.next_cursor],
      ] as const) {
        const deepPage = await marketplace.handle(request(`${path}&offset=${deep}`, auth));
        const cursor = cursorOf(JSON.parse(String(deepPage.body)));
        const cases: [Case, string][] = [
          ['first page', path],
          ['offset 90%', `${path}&offset=${deep}`],
          ['cursor page', `${path}&cursor=${cursor}`],
        ];
        for (const [name, target] of cases) results.set(`${store} ${list} ${name} ${size}`, await time(marketplace, request(target, auth), write));
      }
      await storage.close?.();
    }
  }
} finally {
  await cluster?.stop();
}

console.log(`\nLists at scale, in process (median of ${samples} requests, each after a write), ms; floor: 100,000 at most ${floor}x 1,000`);
console.log('store     list         page          1,000   100,000   ratio  floor');
let missed = 0;
for (const store of stores) {
  for (const list of ['seller list', 'admin queue']) {
    for (const name of ['first page', 'offset 90%', 'cursor page'] as Case[]) {
      const small = results.get(`${store} ${list} ${name} 1000`)!;
      const large = results.get(`${store} ${list} ${name} 100000`)!;
      const ratio = large / small;
      if (ratio > floor) missed++;
      console.log(`${store.padEnd(9)} ${list.padEnd(12)} ${name.padEnd(12)} ${small.toFixed(3).padStart(7)} ${large.toFixed(3).padStart(9)} ${ratio.toFixed(2).padStart(7)}  ${ratio <= floor ? 'met' : 'MISSED'}`);
    }
  }
}
console.log(missed ? `${missed} case(s) missed the floor` : 'every case met the floor');
