/**
 * The dashboard at scale (issue 44, "Performance"): every page's server time with a seller of
 * 100,000 listings and a review queue of 10,000 against the same with 1,000 of each (the floor: at
 * most 2 times), and the listings page against the REST call that reads a page of the same
 * listings (`GET /api/v1/assets?limit=50`; the floor: at most 2 times), side by side in one run,
 * in process through `marketplace.handle()` (no HTTP: the pages' own cost). Every timed request
 * follows an untimed write, so that no read cache answers it. Then the bytes of a first load of each
 * page: its HTML, the stylesheet and the dashboard's own script (the vendored tus client apart),
 * against the 60 KB budget. The listings page's search by a word few listings hold (`?q=lantern`,
 * ten listings of 100,000, one of 1,000) is held to the same floor: the store's word index finds
 * them (docs/adapters.md, "Search"). A search by a word every listing holds (`?q=castle`) reads the
 * seller's every listing and counts them, so it grows with them: timed beside, with no floor.
 *
 * `--stores` may name postgres too: a throwaway cluster (test/fixtures/postgres.ts), each database
 * vacuumed once seeded, as autovacuum would (a GIN index's pending list is then merged).
 *
 * Run: npx tsx bench/dashboard.bench.ts [--samples 100] [--stores memory,sqlite,postgres]
 */
import './help.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { memoryBlobs, memoryStorage } from '../adapters/memory/index.js';
import { assetRecord } from '../conformance/ports/sample-records.js';
import { createMarketplace, seedListings, type CoreRequest, type StoragePort } from '../core/index.js';

const { values } = parseArgs({ options: { samples: { type: 'string', default: '100' }, stores: { type: 'string', default: 'memory,sqlite' } } });
const samples = Number(values.samples);
const stores = values.stores!.split(',') as ('memory' | 'sqlite' | 'postgres')[];
const sizes = [{ listings: 1_000, queue: 1_000 }, { listings: 100_000, queue: 10_000 }] as const;
const serviceKey = 'bench-service-key-0123456789abcdef0123456789';
const floor = 2;
const warmUp = 20;
const site = 'http://localhost:8787';

const dir = mkdtempSync(join(tmpdir(), 'marketkit-dashboard-bench-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));

let cluster: Awaited<ReturnType<typeof import('../test/fixtures/postgres.js').startPostgres>> | undefined;

/** The store, and what to do once it is seeded: PostgreSQL's statistics and GIN pending list as autovacuum would leave them. */
async function open(store: (typeof stores)[number], size: number): Promise<{ storage: StoragePort & { close?: () => Promise<void> }; settle(): Promise<void> }> {
  const nothing = async () => {};
  if (store === 'memory') return { storage: memoryStorage(), settle: nothing };
  if (store === 'sqlite') return { storage: await (await import('../adapters/sqlite/index.js')).sqliteStorage({ path: join(dir, `dashboard-${size}.db`) }), settle: nothing };
  cluster ??= await (await import('../test/fixtures/postgres.js')).startPostgres();
  const url = await cluster.createDatabase();
  const { inSchema, queryRows } = await import('../test/fixtures/postgres-database.js');
  return { storage: await (await import('../adapters/postgres/index.js')).postgresStorage({ url }), settle: async () => void (await queryRows(inSchema(url), 'VACUUM ANALYZE')) };
}

const request = (method: string, target: string, headers: Record<string, string>, body?: string): CoreRequest => {
  const lower = Object.fromEntries(Object.entries({ host: 'localhost:8787', ...headers }).map(([name, value]) => [name.toLowerCase(), value]));
  return {
    method,
    target,
    header: (name) => lower[name],
    body: body === undefined ? null : (new Blob([body]).stream() as unknown as CoreRequest['body']),
  };
};

const text = (body: unknown) => (typeof body === 'string' ? body : body instanceof Uint8Array ? new TextDecoder().decode(body) : String(body));

/** Median milliseconds of `samples` handled requests, each after an untimed write. */
async function time(marketplace: ReturnType<typeof createMarketplace>, make: () => CoreRequest, write: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples + warmUp; i++) {
    await write();
    const req = make();
    const started = performance.now();
    const answer = await marketplace.handle(req);
    const took = performance.now() - started;
    if (answer.status !== 200) throw new Error(`${req.target}: ${answer.status} ${text(answer.body).slice(0, 300)}`);
    if (i >= warmUp) times.push(took);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

/** The listings page's search: a q that matches few listings (seeded below: one in 10,000), and one every listing holds. */
const searchPage = '/dashboard/listings?q=lantern';
const commonSearch = '/dashboard/listings?q=castle';
const pages = ['/dashboard/', '/dashboard/listings', '/dashboard/listings?status=published', searchPage, commonSearch, '/dashboard/tokens', '/dashboard/review', '/dashboard/accounts', '/dashboard/audit'];
/** Pages held to no floor: linear in the seller's listings by design (every listing matches, and the total counts them). */
const unfloored = new Set([commonSearch]);
const results = new Map<string, number>(); // `${store} ${page} ${size}` -> ms
const firstLoad = new Map<string, number>(); // page -> bytes of HTML + CSS + script

for (const store of stores) {
  for (const size of sizes) {
    const { storage, settle } = await open(store, size.listings);
    const marketplace = createMarketplace({ storage, blobs: memoryBlobs(), serviceKey, siteUrl: site, dashboard: {}, rateLimits: Object.fromEntries(['read', 'write', 'admin'].map((c) => [c, { limit: 1e9, windowSeconds: 60 }])) });
    // The seller is an operator too, so that one session opens every page.
    const seller = await marketplace.admin.createAccount({ username: 'bench-seller', is_operator: true });
    const submitter = await marketplace.admin.createAccount({ username: 'bench-submitter' });
    const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 'bench' });
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    const stamp = (i: number) => new Date(base + i * 1000).toISOString();
    const started = performance.now();
    await seedListings(storage, Array.from({ length: size.listings }, (_, i) => assetRecord(seller.id, { status: i % 10 === 0 ? 'published' : 'draft', created_at: stamp(i), updated_at: stamp(i), ...(i % 10_000 === 5 ? { title: `Rare Lantern ${i}` } : {}) })));
    await seedListings(storage, Array.from({ length: size.queue }, (_, i) => assetRecord(submitter.id, { status: 'pending', created_at: stamp(i), updated_at: stamp(i) })));
    await settle();
    console.log(`${store}: seeded ${size.listings.toLocaleString('en')} listings of the seller and a queue of ${size.queue.toLocaleString('en')} in ${((performance.now() - started) / 1000).toFixed(2)} s`);

    // Signed in as a browser is: a sign-in link from the admin API, its POST, the cookie.
    const link = JSON.parse(text((await marketplace.handle(request('POST', `/api/admin/accounts/${seller.id}/login-link`, { authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' }, '{}'))).body)).url as string;
    const signedIn = await marketplace.handle(request('POST', new URL(link).pathname, { origin: site }));
    const cookie = String(signedIn.headers['set-cookie']).split(';')[0]!;
    let n = 0;
    const write = () => storage.updateAccount(submitter.id, { updated_at: new Date(base + ++n).toISOString() });
    results.set(`${store} REST GET /api/v1/assets?limit=50 ${size.listings}`, await time(marketplace, () => request('GET', '/api/v1/assets?limit=50', { authorization: `Bearer ${token}` }), write));
    for (const page of pages) results.set(`${store} ${page} ${size.listings}`, await time(marketplace, () => request('GET', page, { cookie }), write));
    if (size.listings === sizes[0].listings && store === stores[0]) {
      const asset = async (path: string) => text((await marketplace.handle(request('GET', path, {}))).body).length;
      const shared = (await asset('/dashboard/static/dashboard.css')) + (await asset('/dashboard/static/dashboard.js'));
      for (const page of pages) firstLoad.set(page, text((await marketplace.handle(request('GET', page, { cookie }))).body).length + shared);
    }
    await storage.close?.();
  }
}

console.log(`\nThe dashboard at scale, in process (median of ${samples} requests, each after a write), ms; floor: 100,000 listings and a queue of 10,000 at most ${floor}x 1,000 of each`);
console.log('store   page                                  1,000   100,000   ratio  floor');
let missed = 0;
const small = sizes[0].listings;
const large = sizes[1].listings;
for (const store of stores) {
  for (const page of ['REST GET /api/v1/assets?limit=50', ...pages]) {
    const a = results.get(`${store} ${page} ${small}`)!;
    const b = results.get(`${store} ${page} ${large}`)!;
    const ratio = b / a;
    const verdict = unfloored.has(page) ? 'none (linear)' : ratio <= floor ? 'met' : 'MISSED';
    if (verdict === 'MISSED') missed++;
    console.log(`${store.padEnd(7)} ${page.padEnd(36)} ${a.toFixed(3).padStart(7)} ${b.toFixed(3).padStart(9)} ${ratio.toFixed(2).padStart(7)}  ${verdict}`);
  }
}
console.log(`\nThe listings page against the REST call that reads a page of the same listings (floor: at most ${floor}x)`);
for (const store of stores) {
  for (const size of [small, large]) {
    const ratio = results.get(`${store} /dashboard/listings ${size}`)! / results.get(`${store} REST GET /api/v1/assets?limit=50 ${size}`)!;
    if (ratio > floor) missed++;
    console.log(`${store.padEnd(7)} ${size.toLocaleString('en').padStart(7)} listings  ${ratio.toFixed(2)}x  ${ratio <= floor ? 'met' : 'MISSED'}`);
  }
}
console.log('\nFirst load (the page, dashboard.css and dashboard.js, before compression; budget 60 KB = 61,440 bytes)');
for (const [page, bytes] of firstLoad) {
  if (bytes > 61_440) missed++;
  console.log(`${page.padEnd(36)} ${bytes.toLocaleString('en').padStart(8)} bytes  ${bytes <= 61_440 ? 'met' : 'MISSED'}`);
}
console.log(missed ? `${missed} case(s) missed` : 'every case met its floor');
await cluster?.stop();
