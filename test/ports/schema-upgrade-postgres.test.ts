/**
 * A PostgreSQL database migrated by PostgreSQL's own list of before (15 migrations in MarketKit's
 * schema, numbered its own way) upgrades in place to the one list (adapters/sql/migrations/): its
 * history is renumbered under the migration lock, nothing runs again, every row is kept, and its
 * schema is the one a new database gets. (The wave-2 layout in `public`: test/deploy/schema-postgres.test.ts.)
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { migratePostgres, postgresStorage, postgresStudio, schemaVersion } from '../../adapters/postgres/index.js';
import { migrations } from '../../adapters/sql/migrations/migrations.js';
import { runCli } from '../fixtures/cli.js';
import { canonicalRows, keptRows, oldAppliedAt, oldPostgresLayout, rowsThroughTheApi } from '../fixtures/legacy-layouts.js';
import { migrations as oldList } from '../fixtures/legacy-migrations/postgres/migrations.js';
import { queryRows } from '../fixtures/postgres-database.js';
import { copyRows, snapshot } from '../fixtures/postgres-wave2.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { needs } from '../fixtures/parts.js';
import { as, startServer } from '../fixtures/server.js';

const { before, test } = needs('postgresql');

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

/** Every column, index, constraint, trigger and function of MarketKit's schema, as PostgreSQL spells them. */
const schemaOf = async (url: string) =>
  (
    await queryRows(
      url,
      `SELECT 'column ' || table_name || '.' || column_name || ' ' || ordinal_position || ' ' || data_type || ' ' || is_nullable || ' ' || COALESCE(column_default, '') || ' ' || COALESCE(collation_name, '') AS o
         FROM information_schema.columns WHERE table_schema = 'marketkit'
       UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'marketkit'
       UNION ALL SELECT 'constraint ' || conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'marketkit'::regnamespace
       UNION ALL SELECT 'trigger ' || pg_get_triggerdef(oid) FROM pg_trigger WHERE NOT tgisinternal AND tgrelid IN (SELECT oid FROM pg_class WHERE relnamespace = 'marketkit'::regnamespace)
       UNION ALL SELECT 'function ' || pg_get_functiondef(oid) FROM pg_proc WHERE pronamespace = 'marketkit'::regnamespace
       ORDER BY 1`,
    )
  ).map((row) => row.o as string);

async function freshSchema() {
  const url = await cluster.createDatabase();
  await (await postgresStorage({ url })).close();
  return schemaOf(url);
}

const historyOf = async (url: string) => (await queryRows(url, 'SELECT version, name, applied_at FROM marketkit_migrations ORDER BY version')) as { version: number; name: string; applied_at: string }[];

const webhooks = { allowHttp: true, allowPrivateAddresses: true };


test('a database of the old PostgreSQL list, with rows in every table, opens on the one list when instances start at once: its history renumbered, nothing run again, every row kept, the schema a new database gets', async () => {
  const url = await cluster.createDatabase();
  // Real rows, made through the API of this MarketKit in a scratch schema, then copied into the old layout.
  const scratch = { url, schema: 'scratch' };
  const [storage, studio] = [await postgresStorage(scratch), await postgresStudio(scratch)];
  const server = await startServer({ storage, studio, webhooks });
  const made = await rowsThroughTheApi(server);
  await server.close();
  await Promise.all([storage.close(), studio.close()]);
  await oldPostgresLayout(url);
  await copyRows(url, 'scratch', 'marketkit');
  await queryRows(url, 'DROP SCHEMA scratch CASCADE');
  const before = await snapshot(url, 'marketkit');
  for (const table of ['accounts', 'tokens', 'categories', 'assets', 'images', 'uploads', 'studio_records', 'idempotency_keys', 'webhook_endpoints', 'webhook_events', 'webhook_deliveries', 'asset_counts', 'row_counts']) {
    assert.ok(before[table]!.length > 0, `the old database has rows in ${table}`);
  }

  // The new release: instances at once, then a pipeline's migrate; the advisory lock lets one renumber.
  const [one, two, newStudio] = await Promise.all([postgresStorage({ url, poolSize: 2 }), postgresStorage({ url, poolSize: 2 }), postgresStudio({ url, poolSize: 2 })]);
  try {
    const report = await migratePostgres({ url });
    assert.deepEqual(report, { from: schemaVersion, to: schemaVersion, applied: [], where: report.where }, 'done once, by whoever came first');
    // The change counters only move forward: migration 27's backfill of uploads.owner_id is a write to uploads, which bumps them.
    const { marketkit_changes: countersAfter, ...kept } = keptRows(await snapshot(url, 'marketkit'), before);
    const { marketkit_changes: countersBefore, ...old } = canonicalRows(before);
    assert.deepEqual(kept, old, 'every row of every table, unchanged: nothing ran again');
    const counter = (row: string) => JSON.parse(row) as { shard: number; version: number; callers: number };
    const byShard = new Map(countersBefore!.map((row) => [counter(row).shard, counter(row)]));
    assert.equal(countersAfter!.length, countersBefore!.length, 'the same change-counter rows');
    for (const row of countersAfter!.map(counter)) {
      const was = byShard.get(row.shard)!;
      assert.ok(row.version >= was.version && row.callers === was.callers, `change counter ${row.shard} never goes back`);
    }
    const history = await historyOf(url);
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
    assert.deepEqual(await schemaOf(url), await freshSchema(), 'the schema a new database gets');

    const upgraded = await startServer({ storage: one, studio: newStudio, webhooks });
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
      // And the other instance sees it: the version triggers are as they were.
      const otherInstance = await startServer({ storage: two });
      try {
        assert.equal((await as(otherInstance, made.token).get('/assets')).body.pagination.total, total + 1);
      } finally {
        await otherInstance.close();
      }
    } finally {
      await upgraded.close();
    }
  } finally {
    await Promise.all([one.close(), two.close(), newStudio.close()]);
  }
});

test('marketkit migrate on a database of an older PostgreSQL list (up to its list-moves, 12) says it renumbered, then applies the one list’s migrations after that, and only those', async () => {
  const url = await cluster.createDatabase();
  await oldPostgresLayout(url, { upTo: 12 });
  await queryRows(url, "INSERT INTO categories (id, slug, name) VALUES ('c1', 'maps', 'Maps')");
  const renumbered = migrations.find((m) => m.name === 'list-moves')!.version;
  assert.equal(renumbered, 15);
  const where = `127.0.0.1:${cluster.port}${new URL(url).pathname}`;
  const run = await runCli(['migrate', '--database-url', url]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(
    run.stdout,
    [
      `Renumbered the migration history of the database at ${where} onto the one list: its version 12 is version ${renumbered}.`,
      `Migrated the database at ${where} from schema version ${renumbered} to ${schemaVersion}:`,
      ...migrations.filter((m) => m.version > renumbered).map((m) => `  applied ${m.version} ${m.name}`),
      '',
    ].join('\n'),
  );
  const history = await historyOf(url);
  assert.deepEqual(
    history.filter((row) => row.applied_at.startsWith('2026-01-01T00:00:')).map((row) => row.name),
    oldList.slice(0, 12).map((m) => m.name),
    'the old twelve keep their times',
  );
  assert.deepEqual(history.map((row) => row.version), migrations.map((m) => m.version));
  assert.deepEqual(await schemaOf(url), await freshSchema(), 'the schema a new database gets');
  const storage = await postgresStorage({ url });
  try {
    assert.deepEqual((await storage.listCategories()).map((c) => c.slug), ['maps']);
  } finally {
    await storage.close();
  }
});
