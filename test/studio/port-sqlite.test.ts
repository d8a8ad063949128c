import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sqliteStorage, sqliteStudio } from '../../adapters/sqlite/index.js';
import { studioQueries } from '../../adapters/sqlite/studio-storage.js';
import { migrations } from '../../adapters/sql/migrations/migrations.js';
import { runStudioSuite } from '../../conformance/ports/index.js';

const freshPath = () => join(mkdtempSync(join(tmpdir(), 'marketkit-studio-')), 'marketkit.db');

runStudioSuite({
  test,
  prefix: 'sqlite: ',
  create: () => sqliteStudio({ path: freshPath() }),
  async dispose(studio) {
    await studio.close();
    rmSync(dirname(studio.path), { recursive: true, force: true });
  },
  capabilities: {
    // A second connection to the same file, as a second server process would open it.
    openPeer: (studio) => sqliteStudio({ path: studio.path }),
  },
});

test('the studio shares the listing database file: one migration history, both open in either order', async (t) => {
  const path = freshPath();
  t.after(() => rmSync(dirname(path), { recursive: true, force: true }));
  const studio = await sqliteStudio({ path });
  const storage = await sqliteStorage({ path });
  await storage.close();
  await studio.close();
  const db = new Database(path, { readonly: true });
  t.after(() => db.close());
  const names = (db.prepare('SELECT name FROM marketkit_migrations ORDER BY version').all() as { name: string }[]).map((row) => row.name);
  // The studio's steps and the listings' steps are one numbered history, whichever opened first.
  assert.deepStrictEqual(names, migrations.map((migration) => migration.name));
  assert.ok(names.includes('studio') && names.includes('studio-keys'));
});

test('every studio query is served by an index, never by a scan of the table', async (t) => {
  const path = freshPath();
  t.after(() => rmSync(dirname(path), { recursive: true, force: true }));
  await (await sqliteStudio({ path })).close();
  const db = new Database(path, { readonly: true });
  t.after(() => db.close());
  for (const [name, sql] of Object.entries(studioQueries)) {
    if (name === 'insert') continue;
    const parameters = (sql.match(/\?/g) ?? []).map(() => null);
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[]).map((row) => row.detail);
    for (const step of plan) {
      // The recursive walk of removeTree reads its own queue (tree) and seed row, neither a scan of studio_records.
      if (/^SCAN (tree|CONSTANT ROW)/.test(step)) continue;
      assert.doesNotMatch(step, /^SCAN (?!.*USING (COVERING )?INDEX)/, `${name}: ${step}`);
      assert.doesNotMatch(step, /USE TEMP B-TREE FOR ORDER BY/, `${name} sorts without an index: ${step}`);
    }
  }
});

test('bad options say what to change', async () => {
  await assert.rejects(sqliteStudio({ path: '' }), /marketkit sqliteStudio: .*path must not be empty/);
  await assert.rejects(sqliteStudio({ path: join(freshPath(), 'no', 'such', 'x.db') }), /marketkit sqliteStudio: cannot open .*does its directory exist/);
});
