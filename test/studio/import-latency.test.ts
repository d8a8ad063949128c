/**
 * Pentest finding: a 1 MiB studio import blocked the event loop for 0.7 to 1.5 s, and one token
 * looping imports pushed everyone's p99 from 61 to 508 ms. Imports now run in slices with the event
 * loop free between them (docs/security.md, "Studio import"): while one client imports documents of
 * the documented maximum (the 1 MiB JSON body limit) back to back, another client's p99 stays under
 * 100 ms. Measured against `marketkit serve` (SQLite studio storage) in its own process, as a
 * deployment runs it; this process only sends requests.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { memoryStudio } from '../../adapters/memory/index.js';
import type { StudioLimits, StudioRecord, StudioStoragePort } from '../../core/ports/studio.js';
import { importInsertBatch } from '../../core/studio/transfer.js';
import { startCliServer, tempDir } from '../fixtures/cli.js';
import { as, startServer } from '../fixtures/server.js';

const maxBodyBytes = 1024 * 1024;

/**
 * A document as heavy to check as one body can hold: 100 labels, 1,000 wiki pages in one chain
 * (unique slugs, the deepest cycle check), 50 columns, and cards with labels up to the byte limit.
 */
function heaviestDocument(bodyBytes: number) {
  const id = () => crypto.randomUUID();
  const labels = Array.from({ length: 100 }, (_, i) => ({ id: id(), name: `label-${i}`, colour: '#808080' }));
  const wikiPages: { id: string; title: string; slug: string; body: string; parent_page_id: string | null }[] = [];
  for (let i = 0; i < 1000; i++) wikiPages.push({ id: id(), title: `Page ${i}`, slug: `page-${i}`, body: '', parent_page_id: i === 0 ? null : wikiPages[i - 1]!.id });
  const board = { id: id(), name: 'Build', description: null };
  const columns = Array.from({ length: 50 }, (_, i) => ({ id: id(), board_id: board.id, position: i, name: `Column ${i}` }));
  const cards: Record<string, unknown>[] = [];
  const document = {
    format: 'marketkit.studio.project',
    version: 1,
    exported_at: '2026-01-15T12:00:00.000Z',
    project: { id: id(), name: 'Heaviest', description: null },
    boards: [board],
    columns,
    cards,
    sprints: [],
    wiki_pages: wikiPages,
    snippets: [],
    island_codes: [],
    milestones: [],
    labels,
  };
  let size = JSON.stringify({ document }).length;
  for (let i = 0; ; i++) {
    const column = columns[i % columns.length]!;
    const card = { id: id(), column_id: column.id, position: Math.floor(i / columns.length), title: `Card ${i}`, description: null, labels: [labels[i % labels.length]!.id], assignee: null, due_date: null };
    const added = JSON.stringify(card).length + 1;
    if (size + added > bodyBytes) break;
    cards.push(card);
    size += added;
  }
  return document;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

test("imports of the largest document, back to back, keep another client's p99 under 100 ms", async (t) => {
  const server = await startCliServer(['--data-dir', tempDir(t)]);
  t.after(() => server.stop('SIGKILL'));
  const { api } = server.info;
  const token = server.info.dev_seller.token!;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const body = JSON.stringify({ document: heaviestDocument(maxBodyBytes - 64) });
  assert.ok(body.length > maxBodyBytes - 1024 && body.length <= maxBodyBytes, `${body.length} bytes`);

  const get = async () => {
    const started = performance.now();
    const response = await fetch(`${api}/me`, { headers });
    await response.arrayBuffer();
    assert.equal(response.status, 200);
    return performance.now() - started;
  };
  // Warm up both paths (the first import compiles its schemas), then measure for 3 seconds.
  for (let i = 0; i < 20; i++) await get();
  const first = await fetch(`${api}/studio/import`, { method: 'POST', headers, body });
  assert.equal(first.status, 201, await first.text());

  /** One window of 3 s: imports back to back, and the other client's reads every 5 ms. */
  const window = async () => {
    const until = performance.now() + 3000;
    let imports = 0;
    const importing = (async () => {
      while (performance.now() < until) {
        const response = await fetch(`${api}/studio/import`, { method: 'POST', headers, body });
        assert.equal(response.status, 201, await response.text());
        imports++;
      }
    })();
    const latencies: number[] = [];
    while (performance.now() < until) {
      latencies.push(await get());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await importing;
    const p99 = percentile(latencies, 99);
    t.diagnostic(
      `${imports} imports of ${body.length} bytes; ${latencies.length} reads: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
    );
    assert.ok(imports >= 2, `only ${imports} imports ran`);
    return p99;
  };
  // A machine busy with other work can spoil one window (the test runner may run other files beside
  // this one); a second window decides then. Before the slices, both were near 1 s.
  let p99 = await window();
  if (p99 >= 100) p99 = await window();
  assert.ok(p99 < 100, `p99 ${p99.toFixed(1)} ms`);
});

describe('an import in slices is still one import', () => {
  /** memoryStudio whose insert fails on the `failAt`-th call (0: never), recording what was stored. */
  function flakyStudio() {
    const inner = memoryStudio();
    const control = { failAt: 0, calls: 0, ids: [] as string[] };
    const port: StudioStoragePort = Object.assign(Object.create(inner) as StudioStoragePort, {
      async insert(records: StudioRecord[], limits?: StudioLimits) {
        if (++control.calls === control.failAt) throw new Error('studio storage down');
        await inner.insert(records, limits);
        control.ids.push(...records.map((record) => record.id));
      },
    });
    return { port, control };
  }

  test('a storage failure midway leaves none of its records behind; checks name the item as before', async (t) => {
    const { port, control } = flakyStudio();
    const reported: unknown[] = [];
    const server = await startServer({ studio: port, onError: (error) => void reported.push(error) });
    t.after(() => server.close());
    const client = as(server, server.seller.token);
    const document = heaviestDocument(200 * 1024);
    const records = 1 + document.labels.length + document.wiki_pages.length + 1 + document.columns.length + document.cards.length;
    assert.ok(records > 3 * importInsertBatch, `${records} records make several storage calls`);

    control.failAt = 3;
    const failed = await client.post('/studio/import', { document });
    assert.equal(failed.status, 500);
    assert.equal(reported.length, 1);
    assert.ok(control.ids.length >= 2 * importInsertBatch, 'two calls stored their records before the failure');
    for (const id of control.ids) assert.equal(await port.get(id), null, `record ${id} was left behind`);
    assert.deepEqual((await client.get('/studio/projects')).body.data, []);

    control.failAt = 0;
    const imported = await client.post('/studio/import', { document });
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    assert.equal(imported.body.records, records);
    const exported = await client.get(`/studio/projects/${imported.body.project.id}/export`);
    assert.equal(exported.body.cards.length, document.cards.length);
    assert.deepEqual(
      exported.body.wiki_pages.map((page: { title: string }) => page.title).sort(),
      document.wiki_pages.map((page) => page.title).sort(),
    );

    const refusals: [string, (doc: ReturnType<typeof heaviestDocument>) => void, string, RegExp][] = [
      ['a card naming one label twice', (doc) => (doc.cards[7]!.labels = [doc.labels[0]!.id, doc.labels[0]!.id]), 'document.cards[7].labels', /same value twice/],
      ['a page under itself', (doc) => (doc.wiki_pages[5]!.parent_page_id = doc.wiki_pages[5]!.id), 'document.wiki_pages[5].parent_page_id', /itself/],
      ['two pages under each other', (doc) => (doc.wiki_pages[0]!.parent_page_id = doc.wiki_pages[1]!.id), 'document.wiki_pages[0].parent_page_id', /under itself/],
      ['a slug twice', (doc) => (doc.wiki_pages[900]!.slug = doc.wiki_pages[3]!.slug), 'document.wiki_pages[900].slug', /repeats the slug/],
    ];
    for (const [what, change, path, message] of refusals) {
      const doc = structuredClone(document);
      change(doc);
      const refused = await client.post('/studio/import', { document: doc });
      assert.equal(refused.status, 400, `${what}: ${JSON.stringify(refused.body)}`);
      assert.equal(refused.body.details[0].path, path, what);
      assert.match(refused.body.details[0].message, message, what);
    }
    assert.equal((await client.get('/studio/projects')).body.data.length, 1, 'only the one import');
  });
});
