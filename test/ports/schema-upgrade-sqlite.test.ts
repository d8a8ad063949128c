/**
 * A SQLite database migrated by SQLite's own list of before (16 migrations, numbered its own way)
 * upgrades in place to the one list (adapters/sql/migrations/): its history is renumbered, nothing
 * runs again, every row is kept, and its schema is the one a new database gets.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { sqliteStorage, sqliteStudio } from '../../adapters/sqlite/index.js';
import { migrations } from '../../adapters/sql/migrations/migrations.js';
import { canonicalRows, keptRows, copySqliteRows, oldAppliedAt, oldSqliteLayout, rowsThroughTheApi, sqliteSnapshot } from '../fixtures/legacy-layouts.js';
import { migrations as oldList } from '../fixtures/legacy-migrations/sqlite/migrations.js';
import { as, startServer } from '../fixtures/server.js';

function directory(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-old-list-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const read = <T>(path: string, fn: (db: Database.Database) => T): T => {
  const db = new Database(path, { readonly: true });
  try {
    return fn(db);
  } finally {
    db.close();
  }
};

/** Every table, index and trigger with the statement that made it, and the bookkeeping's columns (its statement's text differs: the old runner spelled it over several lines). */
const schemaOf = (path: string) =>
  read(path, (db) => ({
    objects: db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name <> 'marketkit_migrations' ORDER BY type, name").all(),
    bookkeeping: db.prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info('marketkit_migrations')").all(),
  }));

const historyOf = (path: string) => read(path, (db) => db.prepare('SELECT version, name, applied_at FROM marketkit_migrations ORDER BY version').all() as { version: number; name: string; applied_at: string }[]);

async function freshSchema(dir: string) {
  const path = join(dir, 'fresh.db');
  await (await sqliteStorage({ path })).close();
  return schemaOf(path);
}


test('a database of the old SQLite list, with rows in every table, opens on the one list: its history renumbered, nothing run again, every row kept, the schema a new database gets', async (t) => {
  const dir = directory(t);
  // Real rows, made through the API on a new database, then copied into one laid out by the old list.
  const source = join(dir, 'source.db');
  const [storage, studio] = [await sqliteStorage({ path: source }), await sqliteStudio({ path: source })];
  const server = await startServer({ storage, studio, webhooks: { allowHttp: true, allowPrivateAddresses: true } });
  const made = await rowsThroughTheApi(server);
  await server.close();
  await Promise.all([storage.close(), studio.close()]);

  const path = join(dir, 'marketkit.db');
  oldSqliteLayout(path);
  copySqliteRows(source, path);
  const before = sqliteSnapshot(path);
  for (const table of ['accounts', 'tokens', 'categories', 'assets', 'images', 'uploads', 'studio_records', 'idempotency_keys', 'webhook_endpoints', 'webhook_events', 'webhook_deliveries', 'asset_counts', 'row_counts']) {
    assert.ok(before[table]!.length > 0, `the old database has rows in ${table}`);
  }

  // The new release, opened three times at once in one process: one renumbers, the others find it done.
  const opened = await Promise.all([sqliteStorage({ path }), sqliteStorage({ path }), sqliteStudio({ path })]);
  const [one, two, newStudio] = opened;
  try {
    assert.deepEqual(keptRows(sqliteSnapshot(path), before), canonicalRows(before), 'every row of every table, unchanged: nothing ran again');
    const history = historyOf(path);
    assert.deepEqual(
      history.map((row) => [row.version, row.name]),
      migrations.map((m) => [m.version, m.name]),
      'the one list, every version',
    );
    for (const old of oldList) {
      const row = history.find((r) => r.name === old.name)!;
      assert.equal(row.applied_at, oldAppliedAt(old.version), `${old.name}, old ${old.version}, is ${row.version} with the time it was applied`);
    }
    // SQLite's 14 and PostgreSQL's 13 (the events' traceparent) are one migration now.
    assert.equal(history.find((r) => r.name === 'event-traceparent')!.version, 16);
    assert.deepEqual(schemaOf(path), await freshSchema(dir), 'the schema a new database gets');

    // Served on the old rows: the token, the listing, the studio, the webhooks, the kept answer; a new write counts.
    const upgraded = await startServer({ storage: one, studio: newStudio, webhooks: { allowHttp: true, allowPrivateAddresses: true } });
    try {
      const client = as(upgraded, made.token);
      assert.equal((await client.get('/me')).body.id, made.sellerId);
      const asset = await client.get(`/assets/${made.assetId}`);
      assert.deepEqual([asset.status, asset.body.status, asset.body.images.length, typeof asset.body.file], [200, 'pending', 1, 'object']);
      assert.deepEqual((await client.get('/webhooks')).body.data.map((e: { id: string }) => e.id), [made.endpointId]);
      assert.equal((await client.get(`/studio/projects/${made.projectId}`)).body.name, 'Island');
      assert.deepEqual(await (await fetch(`${upgraded.api}/assets`, made.idempotent.request)).json(), made.idempotent.body, 'a kept answer is replayed');
      const total = (await client.get('/assets')).body.pagination.total;
      assert.equal((await client.post('/assets', { title: 'After the upgrade', slug: 'after-the-upgrade' })).status, 201);
      assert.equal((await client.get('/assets')).body.pagination.total, total + 1, 'the kept totals go on counting');
    } finally {
      await upgraded.close();
    }
  } finally {
    await Promise.all([one.close(), two.close(), newStudio.close()]);
  }
  // Opening again changes nothing.
  const history = historyOf(path);
  await (await sqliteStorage({ path })).close();
  assert.deepEqual(historyOf(path), history);
});

test('a database of an older SQLite list (up to its list-moves, 13) gets the one list’s migrations after that, and only those', async (t) => {
  const dir = directory(t);
  const path = join(dir, 'marketkit.db');
  oldSqliteLayout(path, { upTo: 13 });
  const db = new Database(path);
  db.prepare("INSERT INTO categories (id, slug, name) VALUES ('c1', 'maps', 'Maps')").run();
  db.close();
  const storage = await sqliteStorage({ path });
  try {
    assert.deepEqual((await storage.listCategories()).map((c) => c.slug), ['maps']);
  } finally {
    await storage.close();
  }
  const history = historyOf(path);
  const renumbered = migrations.find((m) => m.name === 'list-moves')!.version;
  assert.equal(renumbered, 15);
  assert.deepEqual(
    history.filter((row) => row.applied_at.startsWith('2026-01-01T00:00:')).map((row) => row.name),
    oldList.slice(0, 13).map((m) => m.name),
    'the old thirteen keep their times',
  );
  assert.deepEqual(history.map((row) => row.version), migrations.map((m) => m.version));
  assert.deepEqual(schemaOf(path), await freshSchema(dir), 'the schema a new database gets');
});
