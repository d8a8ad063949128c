/**
 * Creator Studio in process, without HTTP: `marketplace.handle()` on memory and on SQLite studio
 * storage, each case's time per request set against the same run's baseline, an authenticated
 * GET /api/v1/assets/{id} on the memory adapters (the core's cheapest authenticated call).
 * A project of 4000 cards in 5 columns (800 each) shows what a big project costs.
 *
 * Run: npx tsx bench/studio.bench.ts [--requests 300]
 */
import './help.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { memoryBlobs, memoryStorage, memoryStudio } from '../adapters/memory/index.js';
import { sqliteStudio } from '../adapters/sqlite/index.js';
import { createMarketplace, type CoreRequest, type Marketplace, type StudioStoragePort } from '../core/index.js';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '300' } } });
const requests = Number(values.requests);

async function setUp(studio: StudioStoragePort) {
  const marketplace = createMarketplace({
    storage: memoryStorage(),
    blobs: memoryBlobs(),
    studio,
    rateLimits: { read: { limit: 1e9, windowSeconds: 60 }, write: { limit: 1e9, windowSeconds: 60 } },
  });
  const seller = await marketplace.admin.createAccount({ username: 'bench' });
  const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 'bench', scopes: ['assets:read', 'assets:write', 'studio:read', 'studio:write'] });
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, host: '127.0.0.1' };
  const request = (method: string, target: string, body?: unknown): CoreRequest => ({
    method,
    target: `/api/v1${target}`,
    header: (name) => headers[name],
    body:
      body === undefined
        ? null
        : (async function* () {
            yield new TextEncoder().encode(JSON.stringify(body));
          })(),
  });
  const call = async (method: string, target: string, body?: unknown) => {
    const response = await marketplace.handle(request(method, target, body));
    if (response.status >= 300) throw new Error(`${method} ${target}: ${response.status} ${String(response.body)}`);
    return JSON.parse(response.body as string);
  };
  return { marketplace, call };
}

/** Mean µs per call of `fn` over `n` calls, after a short warm-up. */
async function time(n: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(20, n); i++) await fn(i);
  const started = performance.now();
  for (let i = 0; i < n; i++) await fn(i);
  return ((performance.now() - started) * 1000) / n;
}

async function baseline(): Promise<number> {
  const { call } = await setUp(memoryStudio());
  const { id } = await call('POST', '/assets', { title: 'Castle Pack', slug: 'castle-pack' });
  for (let i = 0; i < 10_000; i++) await call('GET', `/assets/${id}`); // warm-up: the first thousands are JIT time
  return time(requests * 10, () => call('GET', `/assets/${id}`));
}

async function cases(name: string, studio: StudioStoragePort) {
  const { call } = await setUp(studio);
  const small = await call('POST', '/studio/projects', { name: 'Small' });
  const smallBoard = await call('POST', `/studio/projects/${small.id}/boards`, { name: 'B' });
  const smallColumn = await call('POST', `/studio/boards/${smallBoard.id}/columns`, { name: 'To do' });
  const label = await call('POST', `/studio/projects/${small.id}/labels`, { name: 'bug' });
  const document = await call('GET', `/studio/projects/${small.id}/export`);
  const columns = Array.from({ length: 5 }, (_, i) => ({ id: crypto.randomUUID(), board_id: document.boards[0].id, position: i, name: `c${i}` }));
  document.columns = columns;
  document.cards = Array.from({ length: 4000 }, (_, i) => ({
    id: crypto.randomUUID(), column_id: columns[i % 5]!.id, position: i, title: `Task ${i}`, description: null, labels: [document.labels[0].id], assignee: null, due_date: null,
  }));
  const rows: [string, number][] = [];
  const importStarted = performance.now();
  const big = await call('POST', '/studio/import', { document });
  rows.push(['import a 4000-card project (one call)', (performance.now() - importStarted) * 1000]);
  const bigBoard = (await call('GET', `/studio/projects/${big.project.id}/boards`)).data[0];
  const bigColumns = (await call('GET', `/studio/boards/${bigBoard.id}/columns`)).data.map((c: { id: string }) => c.id);
  const bigCards = (await call('GET', `/studio/columns/${bigColumns[0]}/cards`)).data.map((c: { id: string }) => c.id);
  rows.push(['create a card, small project', await time(requests, (i) => call('POST', `/studio/columns/${smallColumn.id}/cards`, { title: `t${i}`, labels: [label.id] }))]);
  rows.push(['create a card, 4000-card project', await time(requests, (i) => call('POST', `/studio/columns/${bigColumns[i % 5]}/cards`, { title: `t${i}` }))]);
  rows.push(['get a card, 4000-card project', await time(requests, (i) => call('GET', `/studio/cards/${bigCards[i % bigCards.length]}`))]);
  rows.push(['move a card to the top of an 800-card column', await time(requests, (i) => call('POST', `/studio/cards/${bigCards[(i * 7) % bigCards.length]}/move`, { position: 0 }))]);
  rows.push(['list an 800-card column', await time(Math.max(10, requests / 10), () => call('GET', `/studio/columns/${bigColumns[1]}/cards`))]);
  rows.push(['export a 4000-card project', await time(Math.max(5, requests / 30), () => call('GET', `/studio/projects/${big.project.id}/export`))]);
  return rows.map(([what, micros]) => [`${name}: ${what}`, micros] as const);
}

const dir = mkdtempSync(join(tmpdir(), 'marketkit-studio-bench-'));
try {
  const sqlite = await sqliteStudio({ path: join(dir, 'studio.db') });
  const base = await baseline();
  const rows = [...(await cases('memory', memoryStudio())), ...(await cases('SQLite', sqlite))];
  const baseAfter = await baseline();
  const mean = (base + baseAfter) / 2;
  await sqlite.close();
  console.log(`Baseline: GET /assets/{id} in process on memory, ${base.toFixed(0)} and ${baseAfter.toFixed(0)} µs (before and after)`);
  console.log('| case | µs per call | × baseline |');
  console.log('| --- | --- | --- |');
  for (const [what, micros] of rows) console.log(`| ${what} | ${micros.toFixed(0)} | ${(micros / mean).toFixed(1)} |`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
