import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { schemaVersion, sqliteStorage } from '../../adapters/sqlite/index.js';
import { migrations } from '../../adapters/sql/migrations/migrations.js';
import { queries } from '../../adapters/sqlite/queries.js';
import { ConfigurationError } from '../../core/errors.js';

function databaseFile(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-schema-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'marketkit.db');
}

test('migrations are recorded once, however often the database is opened, also by two at once', async (t) => {
  const path = databaseFile(t);
  const opened = await Promise.all([sqliteStorage({ path }), sqliteStorage({ path })]);
  for (const storage of opened) await storage.close();
  await (await sqliteStorage({ path })).close();
  const db = new Database(path, { readonly: true });
  t.after(() => db.close());
  const versions = db.prepare('SELECT version FROM marketkit_migrations ORDER BY version').all() as { version: number }[];
  assert.deepStrictEqual(versions.map((row) => row.version), migrations.map((migration) => migration.version), 'every migration, once (numbers may skip while branches are merged)');
});

test('the database file is in WAL mode, read by the driver of the runtime', async (t) => {
  const path = databaseFile(t);
  const storage = await sqliteStorage({ path, busyTimeoutMs: 1234 });
  await storage.close();
  const db = new Database(path, { readonly: true });
  t.after(() => db.close());
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(storage.driver, 'better-sqlite3');
});

test('a database from a newer MarketKit is refused, and says what to do', async (t) => {
  const path = databaseFile(t);
  await (await sqliteStorage({ path })).close();
  const db = new Database(path);
  db.prepare("INSERT INTO marketkit_migrations (version, name, applied_at) VALUES (?, 'future', '2030-01-01T00:00:00.000Z')").run(schemaVersion + 1);
  db.close();
  await assert.rejects(sqliteStorage({ path }), (error: Error) => {
    assert.ok(error instanceof ConfigurationError);
    assert.match(error.message, new RegExp(`schema version ${schemaVersion + 1}, written by a newer MarketKit; this one knows versions up to ${schemaVersion}\\. Upgrade marketkit`));
    return true;
  });
});

test('bad options and an unopenable path say what to change', async (t) => {
  await assert.rejects(sqliteStorage({ path: '' }), /marketkit sqliteStorage: .*path must not be empty/);
  await assert.rejects(sqliteStorage({ path: ':memory:', driver: 'sqlite3' as never }), /driver must be "better-sqlite3", "bun-sqlite" or "node-sqlite"/);
  await assert.rejects(sqliteStorage({ path: join(databaseFile(t), 'no', 'such', 'dir', 'x.db') }), /cannot open .*does its directory exist/);
  await assert.rejects(sqliteStorage({ path: ':memory:', driver: 'bun-sqlite' }), /the bun-sqlite driver needs Bun/);
});

test('every query the adapter makes is served by an index, never by a scan of a table', async (t) => {
  const path = databaseFile(t);
  await (await sqliteStorage({ path })).close();
  const db = new Database(path, { readonly: true });
  t.after(() => db.close());
  // Inserts and the full list of categories (a short table, sorted in code) read no index by design;
  // changeVersion reads two counters of the connection, no table.
  const noLookup = new Set(['insertAccount', 'insertToken', 'insertCategory', 'insertImage', 'listCategories', 'ping', 'changeVersion']);
  // An asset's images (ten at most) are found by index and sorted primary first in a few bytes; with
  // the asset (getAssetWithImages), json_group_array then reads those sorted rows (SCAN of the subquery i).
  const smallSort = new Set(['listImages', 'getAssetWithImages']);
  // Offset pages read their ids on an index (SEARCH ... COVERING INDEX), then scan and sort that page of ids, at most 101.
  const pages = new Set(['listAssets', 'listAssetsByStatus', 'listAssetsInStatus', 'anchoredAssets', 'anchoredAssetsByStatus', 'anchoredAssetsInStatus']);
  // Offset anchors (adapters/sql/offset-anchors.ts): a recursive walk (chain, its own rows) seeking on the
  // list's covering index from anchor to anchor, and a page from an anchor joined to its counter's one row (m).
  const anchorChains = new Set(['anchorChainAssets', 'anchorChainAssetsByStatus', 'anchorChainAssetsInStatus']);
  // A search by the word index (migration 28) reads FTS5's index by MATCH (a VIRTUAL TABLE step with
  // its MATCH plan, M) and sorts its matches: at most wordIndexCap rows, or the statement is not used.
  const wordIndexed = new Set(['wordIndexCandidates', 'indexedSearchAssets', 'indexedSearchAssetsByStatus', 'indexedSearchAssetsAfter', 'indexedSearchAssetsByStatusAfter', 'countIndexedSearchAssets', 'countIndexedSearchAssetsByStatus']);
  for (const [name, sql] of Object.entries(queries)) {
    if (noLookup.has(name)) continue;
    const parameters = (sql.match(/\?/g) ?? []).map(() => null);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[]).map((row) => row.detail);
    if (pages.has(name) || anchorChains.has(name)) assert.ok(plan.some((step) => /^SEARCH assets USING COVERING INDEX/.test(step)), `${name} skips on an index: ${plan.join(' | ')}`);
    for (const step of plan) {
      if (pages.has(name) && /^SCAN page( LEFT-JOIN)?$|^SCAN m$|USE TEMP B-TREE FOR ORDER BY/.test(step)) continue;
      if (anchorChains.has(name) && /^SCAN (chain|CONSTANT ROW)$/.test(step)) continue;
      if (name === 'getAssetWithImages' && step === 'SCAN i') continue;
      if (wordIndexed.has(name) && /^SCAN asset_search VIRTUAL TABLE INDEX 0:M|^SCAN c$|USE TEMP B-TREE FOR ORDER BY/.test(step)) continue;
      assert.doesNotMatch(step, /^SCAN (?!.*USING (COVERING )?INDEX)/, `${name}: ${step}`);
      if (!smallSort.has(name)) assert.doesNotMatch(step, /USE TEMP B-TREE FOR ORDER BY/, `${name} sorts without an index: ${step}`);
    }
  }
});
