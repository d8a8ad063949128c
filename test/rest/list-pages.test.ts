import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import { postgresStorage } from '../../adapters/postgres/index.js';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { assetRecord } from '../../conformance/ports/sample-records.js';
import { seedListings, type StoragePort } from '../../core/index.js';
import { callTool } from '../fixtures/mcp.js';
import { inSchema } from '../fixtures/postgres-database.js';
import { as, assetWithFile, startServer, validAsset, type TestServer } from '../fixtures/server.js';
import { sharedCluster, startServerOn, stopStores, storeNames } from '../fixtures/stores.js';

// Cursor pages and kept totals (docs/rest.md, "Pagination"), through HTTP, on every store.

const serviceKey = 'test-service-key-0123456789abcdef0123456789';

after(stopStores);

async function admin(server: TestServer, path: string, method = 'GET') {
  const res = await fetch(`${server.url}/api/admin${path}`, { method, headers: { authorization: `Bearer ${serviceKey}` } });
  return { status: res.status, body: await res.json() };
}

/**
 * Reads `path` a cursor page at a time; `between(n)` runs concurrently with each page's request.
 * Returns every id in the order seen.
 */
async function walk(read: (cursor: string | null) => Promise<{ ids: string[]; next: string | null }>, between: (n: number) => Promise<void>) {
  const seen: string[] = [];
  let cursor: string | null = null;
  for (let n = 0; n < 200; n++) {
    const [page]: [{ ids: string[]; next: string | null }, void] = await Promise.all([read(cursor), between(n)]);
    seen.push(...page.ids);
    if (!page.next) return seen;
    cursor = page.next;
  }
  throw new Error('the walk did not end');
}

function assertOnceEach(seen: string[], stayed: string[], what: string) {
  assert.equal(new Set(seen).size, seen.length, `${what}: a listing was repeated across pages`);
  for (const id of stayed) assert.ok(seen.includes(id), `${what}: ${id}, there all along, was skipped`);
}

for (const store of storeNames) {
  describe(`cursor pages and totals on ${store}`, () => {
    let server: TestServer;
    test(`start (${store})`, async () => {
      server = await startServerOn(store, { serviceKey });
    });
    after(() => server?.close());

    test('GET /assets by cursor never skips or repeats a listing while others are created and deleted', async () => {
      const seller = await server.account();
      const api = as(server, seller.token);
      const first: string[] = [];
      for (let i = 0; i < 23; i++) {
        if (i % 3 === 0) server.clock.advance(1000); // some share a created_at: the id orders them
        first.push((await api.post('/assets', validAsset())).body.id);
      }
      const doomed = first.filter((_, i) => i % 4 === 1).slice(0, 5); // one deleted per page while the pages are read
      const seen = await walk(
        async (cursor) => {
          const page = await api.get(`/assets?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
          assert.equal(page.status, 200);
          assert.equal(page.body.pagination.total >= page.body.data.length, true);
          return { ids: page.body.data.map((a: { id: string }) => a.id), next: page.body.pagination.next_cursor };
        },
        async (n) => {
          if (n > 4) return;
          server.clock.advance(10);
          const [created, gone] = await Promise.all([api.post('/assets', validAsset()), doomed[n] ? api.delete(`/assets/${doomed[n]}`) : null]);
          assert.equal(created.status, 201);
          if (gone) assert.equal(gone.status, 200);
        },
      );
      assertOnceEach(seen, first.filter((id) => !doomed.includes(id)), 'GET /assets');
      const last = await api.get('/assets?limit=100');
      assert.equal(last.body.pagination.next_cursor, null, 'null on the last page');
      assert.equal(last.body.pagination.has_more, false);
      assert.equal(last.body.pagination.total, 23, '23 + 5 created - 5 deleted');
    });

    test('the admin queue and the accounts list page by cursor, none skipped or repeated', async () => {
      const seller = await server.account();
      const submitted: string[] = [];
      for (let i = 0; i < 7; i++) {
        const asset = await assetWithFile(server, seller.token);
        server.clock.advance(1000);
        assert.equal((await as(server, seller.token).post(`/assets/${asset.id}/submit`)).status, 200);
        submitted.push(asset.id);
      }
      const queue = await walk(
        async (cursor) => {
          const page = await admin(server, `/moderation/queue?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
          assert.equal(page.status, 200);
          return { ids: page.body.items.map((a: { id: string }) => a.id), next: page.body.next_cursor };
        },
        async () => {},
      );
      assertOnceEach(queue, submitted, 'the queue');
      assert.deepEqual(queue.filter((id) => submitted.includes(id)), submitted, 'oldest submission first');

      const accounts = await walk(
        async (cursor) => {
          const page = await admin(server, `/accounts?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
          assert.equal(page.status, 200);
          return { ids: page.body.data.map((a: { id: string }) => a.id), next: page.body.next_cursor };
        },
        async (n) => {
          if (n < 3) await server.account();
        },
      );
      assertOnceEach(accounts, [server.seller.id, server.other.id, seller.id], 'the accounts');
    });

    test('totals are right after a create, a batch, a delete, a submit and a moderation decision', async () => {
      const seller = await server.account();
      const api = as(server, seller.token);
      const totals = async () => ({
        all: (await api.get('/assets?limit=1')).body.pagination.total,
        pending: (await api.get('/assets?limit=1&status=pending')).body.pagination.total,
        queue: (await admin(server, '/moderation/queue?limit=1')).body.total,
      });
      const start = await totals();
      assert.deepEqual({ ...start, queue: 0 }, { all: 0, pending: 0, queue: 0 });
      const withFile = await assetWithFile(server, seller.token);
      assert.deepEqual(await totals(), { ...start, all: 1 }, 'after a create');
      const batch = await api.post('/assets/batch', { assets: [validAsset(), validAsset()] });
      assert.equal(batch.status, 207);
      assert.deepEqual(await totals(), { ...start, all: 3 }, 'after a batch');
      assert.equal((await api.delete(`/assets/${batch.body.results[0].asset.id}`)).status, 200);
      assert.deepEqual(await totals(), { ...start, all: 2 }, 'after a delete');
      assert.equal((await api.post(`/assets/${withFile.id}/submit`)).status, 200);
      assert.deepEqual(await totals(), { all: 2, pending: 1, queue: start.queue + 1 }, 'after a submit');
      assert.equal((await admin(server, `/assets/${withFile.id}/approve`, 'POST')).status, 200);
      assert.deepEqual(await totals(), { all: 2, pending: 0, queue: start.queue }, 'after an approval');
      const counts = (await api.get('/assets/counts')).body;
      assert.deepEqual([counts.total, counts.by_status.published, counts.by_status.draft], [2, 1, 1]);
    });

    test('cursor with offset, a malformed cursor and another list\'s cursor are 400 naming the field', async () => {
      const api = as(server, server.seller.token);
      await api.post('/assets', validAsset());
      await api.post('/assets', validAsset());
      const next = (await api.get('/assets?limit=1')).body.pagination.next_cursor;
      assert.equal(typeof next, 'string');
      const both = await api.get(`/assets?cursor=${next}&offset=0`);
      assert.deepEqual([both.status, both.body.code, both.body.details?.[0]?.path], [400, 'INVALID_INPUT', 'offset']);
      const queueCursor = (await admin(server, '/accounts?limit=1')).body.next_cursor;
      for (const bad of ['not!base64', 'bm90IGpzb24', Buffer.from('["assets","\\u0000","x"]').toString('base64url'), queueCursor, 'A'.repeat(600)]) {
        const refused = await api.get(`/assets?cursor=${encodeURIComponent(bad)}`);
        assert.deepEqual([refused.status, refused.body.code, refused.body.details?.[0]?.path], [400, 'INVALID_INPUT', 'cursor'], bad);
      }
      const adminBad = await admin(server, `/moderation/queue?cursor=${next}`);
      assert.deepEqual([adminBad.status, adminBad.body.details?.[0]?.path], [400, 'cursor']);
      const tool = await callTool(server, server.seller.token, 'list_my_assets', { limit: 1, cursor: next });
      const answer = tool.body.result.structuredContent;
      assert.equal(answer.data.length, 1, 'list_my_assets takes the cursor');
      assert.equal(answer.pagination.offset, 0);
    });
  });
}

// Offset anchors (docs/adapters.md, "Offset anchors"): on SQLite and PostgreSQL an offset page at or
// past 1,000 starts from a kept anchor. Every page must equal a straight OFFSET query's answer, on the
// very next request after another storage on the same database (another connection, another
// instance) created, deleted, moved or edited a listing.
const anchorSpan = 1000;
for (const store of ['sqlite', 'postgres'] as const) {
  describe(`offset pages past the anchors on ${store}`, () => {
    let server: TestServer;
    let other: StoragePort & { close(): Promise<void> };
    let straight: (sql: string, params: unknown[]) => Promise<string[]>;
    const cleanup: (() => Promise<void> | void)[] = [];
    after(async () => {
      await server?.close();
      for (const step of cleanup.reverse()) await step();
    });

    test(`start (${store}), and a second storage on the same database`, async () => {
      if (store === 'sqlite') {
        const dir = mkdtempSync(join(tmpdir(), 'marketkit-anchors-'));
        const path = join(dir, 'marketkit.db');
        server = await startServer({ storage: await sqliteStorage({ path }), serviceKey });
        other = await sqliteStorage({ path });
        const raw = new Database(path, { readonly: true });
        straight = async (sql, params) => (raw.prepare(sql).all(...params) as { id: string }[]).map((row) => row.id);
        cleanup.push(() => rmSync(dir, { recursive: true, force: true }), () => other.close(), () => {
          raw.close();
        });
      } else {
        const url = await (await sharedCluster()).createDatabase();
        server = await startServer({ storage: await postgresStorage({ url, poolSize: 4 }), serviceKey });
        other = await postgresStorage({ url, poolSize: 2 });
        const raw = new pg.Client({ connectionString: inSchema(url) });
        await raw.connect();
        straight = async (sql, params) => {
          let n = 0;
          return (await raw.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows.map((row) => row.id as string);
        };
        cleanup.push(() => other.close(), () => raw.end());
      }
    });

    const at = (second: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + second * 1000).toISOString();
    let seller: Awaited<ReturnType<TestServer['account']>>;
    const lists = [
      { name: 'GET /assets', path: '/assets', sql: 'SELECT id FROM assets WHERE owner_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?', params: () => [seller.id] },
      { name: 'GET /assets?status=pending', path: '/assets?status=pending', sql: "SELECT id FROM assets WHERE owner_id = ? AND status = 'pending' ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?", params: () => [seller.id] },
      { name: 'the moderation queue', path: '/moderation/queue', sql: "SELECT id FROM assets WHERE status = 'pending' ORDER BY updated_at ASC, id ASC LIMIT ? OFFSET ?", params: () => [] },
    ];
    /** Every list's page at each offset, through HTTP, against the straight query. */
    async function pagesMatch(offsets: number[], what: string) {
      for (const list of lists) {
        for (const offset of offsets) {
          const sep = list.path.includes('?') ? '&' : '?';
          const answer = list.path === '/moderation/queue' ? await admin(server, `${list.path}?limit=7&offset=${offset}`) : await as(server, seller.token).get(`${list.path}${sep}limit=7&offset=${offset}`);
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
          const page = answer.body.items ?? answer.body.data;
          const expected = await straight(list.sql, [...list.params(), 7, offset]);
          assert.deepEqual(page.map((a: { id: string }) => a.id), expected, `${what}: ${list.name} at offset ${offset}`);
        }
      }
    }
    const near = (n: number) => [n - 2, n - 1, n, n + 1, n + 2];

    test('offset pages equal a straight OFFSET query on both sides of every anchor', async () => {
      seller = await server.account();
      // 2,600 listings, three to a second (ties ordered by id), every other one pending: each list crosses 1,000.
      await seedListings(other, Array.from({ length: 2600 }, (_, i) => assetRecord(seller.id, { status: i % 2 ? 'pending' : 'draft', created_at: at(Math.floor(i / 3)), updated_at: at(Math.floor(i / 3)) })));
      const everywhere = [0, ...near(anchorSpan), ...near(2 * anchorSpan), ...Array.from({ length: 27 }, (_, i) => 13 + i * 97), 1299, 1300, 1305, 2599, 2600, 2650];
      await pagesMatch(everywhere, 'after the seed');
    });

    test('after another storage creates, deletes, moves and edits listings, the very next offset page is right', async () => {
      const offsets = [...near(anchorSpan), 1250, 1298, ...near(2 * anchorSpan)];
      // A create and a delete: every total stays the same, positions past both shift.
      const [newest, doomed] = [assetRecord(seller.id, { status: 'pending', created_at: at(100), updated_at: at(100) }), (await straight(lists[0]!.sql, [seller.id, 1, 1900]))[0]!];
      assert.equal((await other.createAsset(newest)).outcome, 'created');
      const gone = (await other.getAsset(doomed))!;
      assert.equal((await other.deleteAsset(gone.id, gone.revision)).outcome, 'deleted');
      await pagesMatch(offsets, 'after a create and a delete');
      // A status change of a listing early in every list: pending lists lose it, it stays in the seller's.
      const moved = (await other.getAsset((await straight(lists[1]!.sql, [seller.id, 1, 5]))[0]!))!;
      assert.equal((await other.updateAsset(moved.id, moved.revision, { status: 'draft', updated_at: at(4000) })).outcome, 'updated');
      await pagesMatch(offsets, 'after a status change');
      // An edit of the oldest queued listing: its updated_at moves it to the queue's end, no total changes.
      const edited = (await other.getAsset((await straight(lists[2]!.sql, [1, 0]))[0]!))!;
      assert.equal((await other.updateAsset(edited.id, edited.revision, { title: 'Edited elsewhere', updated_at: at(5000) })).outcome, 'updated');
      await pagesMatch(offsets, 'after an edit in the queue');
      // And through this server's own API, the delete of a draft early in the seller's list.
      const [draft] = await straight("SELECT id FROM assets WHERE owner_id = ? AND status = 'draft' ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?", [seller.id, 1, 300]);
      assert.equal((await as(server, seller.token).delete(`/assets/${draft}`)).status, 200);
      await pagesMatch(offsets, 'after a delete through the API');
    });
  });
}
