/**
 * MarketKit's own PostgreSQL schema (docs/deploy.md, "MarketKit's schema, and upgrading"): a wave-2 database
 * moves into it with every row, several instances starting at once; an application's own
 * `accounts`, `assets` and `tokens` in `public` are left as they were while MarketKit serves
 * beside them; the schema is chosen by option, flag or environment, and a bad name is refused.
 * All on a throwaway PostgreSQL 15 cluster (test/fixtures/postgres.ts).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { migratePostgres, postgresRateLimiter, postgresStorage, postgresStudio, schemaVersion } from '../../adapters/postgres/index.js';
import { migrations } from '../../adapters/sql/migrations/migrations.js';
import { migrations as wave2Migrations } from '../fixtures/legacy-migrations/postgres/migrations.js';
import { keys, runCli, startCliServer, tempDir } from '../fixtures/cli.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { copyRows, snapshot, wave2Layout } from '../fixtures/postgres-wave2.js';
import { as, assetWithFile, startServer, uploadImage, validAsset } from '../fixtures/server.js';
import { createEndpoint } from '../fixtures/webhooks.js';

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

async function rows(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Everything in `schema` (relations of any kind, functions, types but a table's own row type), as `kind name`. */
const objectsIn = async (url: string, schema: string) =>
  (
    await rows(
      url,
      `SELECT 'relation ' || relname AS o FROM pg_class WHERE relnamespace = $1::regnamespace
       UNION ALL SELECT 'function ' || proname FROM pg_proc WHERE pronamespace = $1::regnamespace
       UNION ALL SELECT 'type ' || typname FROM pg_type t WHERE typnamespace = $1::regnamespace AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.reltype = t.oid) AND typelem = 0
       ORDER BY 1`,
      [schema],
    )
  ).map((r) => r.o as string);

const webhookTargets = { allowHttp: true, allowPrivateAddresses: true };

test('a wave-2 database (every table in public, with rows) moves into marketkit when instances start at once: every row kept, served through the API, nothing of MarketKit left in public', async () => {
  const url = await cluster.createDatabase();
  // Real rows, made through the API of this MarketKit in a scratch schema, then copied into the wave-2 tables.
  const scratch = { url, schema: 'scratch' };
  const [storage, studio, limiter] = [await postgresStorage(scratch), await postgresStudio(scratch), await postgresRateLimiter(scratch)];
  const server = await startServer({ storage, studio, webhooks: webhookTargets });
  const seller = as(server, server.seller.token);
  const endpoint = await createEndpoint(server, server.seller.token, { url: 'http://127.0.0.1:9/hook' });
  const { id } = await assetWithFile(server, server.seller.token);
  await uploadImage(server, server.seller.token, id);
  assert.equal((await seller.post(`/assets/${id}/submit`)).status, 200);
  const project = await seller.post('/studio/projects', { name: 'Island' });
  assert.equal(project.status, 201, JSON.stringify(project.body));
  const idempotent = { method: 'POST', headers: { authorization: `Bearer ${server.seller.token}`, 'content-type': 'application/json', 'idempotency-key': 'wave-2-key' }, body: JSON.stringify(validAsset()) };
  const kept = await fetch(`${server.api}/assets`, idempotent);
  assert.equal(kept.status, 201);
  const keptBody = await kept.json();
  await server.marketplace.admin.createCategory({ slug: 'maps', name: 'Maps' });
  await limiter.take('token:wave-2', 'write', Date.now());
  await server.close();
  await Promise.all([storage.close(), studio.close(), limiter.close()]);

  await wave2Layout(url);
  await copyRows(url, 'scratch', 'public');
  await rows(url, 'DROP SCHEMA scratch CASCADE');
  const before = await snapshot(url, 'public');
  for (const table of ['accounts', 'tokens', 'categories', 'assets', 'images', 'uploads', 'studio_records', 'idempotency_keys', 'webhook_endpoints', 'webhook_events', 'webhook_deliveries', 'marketkit_rate_buckets']) {
    assert.ok(before[table]!.length > 0, `the wave-2 database has rows in ${table}`);
  }

  // The new release: instances and a pipeline's migrate, all at once; the advisory lock lets one move the tables.
  const opened = await Promise.all([
    postgresStorage({ url, poolSize: 2 }),
    postgresStorage({ url, poolSize: 2 }),
    postgresStudio({ url, poolSize: 2 }),
    postgresRateLimiter({ url, poolSize: 2 }),
  ]);
  const [one, two, newStudio, newLimiter] = opened;
  const report = await migratePostgres({ url });
  assert.deepEqual(report.applied, [], 'moved once, by whoever came first');
  assert.deepEqual(await objectsIn(url, 'public'), [], 'nothing of MarketKit is left in public');
  // The read cache's version rows may only move forward: a later migration that rewrites rows (10, the
  // usernames) bumps them, as every write does; every other row is as it was.
  const { marketkit_changes: versionsAfter, ...after } = await snapshot(url, 'marketkit');
  const { marketkit_changes: versionsBefore, ...rowsBefore } = before;
  // Tables that later migrations made (11, the upload states) are there and empty; but the kept list
  // totals (13), which count the rows moved.
  const counts = new Set(['asset_counts', 'row_counts']);
  const added = Object.keys(after).filter((table) => !(table in before));
  for (const table of added.filter((t) => !counts.has(t))) assert.deepEqual(after[table], [], `${table}, made after the move, is empty`);
  const counted = (table: string, name?: string) =>
    after[table]!.map((row) => JSON.parse(row) as { name?: string; total: number }).filter((row) => !name || row.name === name).reduce((sum, row) => sum + row.total, 0);
  assert.equal(counted('asset_counts'), after.assets!.length, 'every moved listing counted');
  assert.equal(counted('row_counts', 'accounts'), after.accounts!.length, 'every moved account counted');
  for (const table of counts) delete after[table];
  // Columns that later migrations added (12, uploads.reserved; 16, webhook_events.traceparent; 24, the accounts' roles) hold their defaults,
  // and 27's uploads.owner_id its listing's owner; the rest is as it was.
  const laterColumns: Record<string, Record<string, unknown>> = { uploads: { reserved: 0 }, webhook_events: { traceparent: null }, accounts: { is_moderator: false, is_operator: false } };
  const owners = new Map(after.assets!.map((row) => JSON.parse(row) as { id: string; owner_id: string }).map((asset) => [asset.id, asset.owner_id]));
  const withoutLater = (table: string, tableRows: string[]) =>
    tableRows.map((row) => {
      const parsed = JSON.parse(row) as Record<string, unknown>;
      for (const [column, value] of Object.entries(laterColumns[table] ?? {})) {
        assert.equal(parsed[column], value, `${table}.${column}, added later, holds its default`);
        delete parsed[column];
      }
      if (table === 'uploads') {
        assert.equal(parsed.owner_id, owners.get(parsed.asset_id as string), 'uploads.owner_id, added later, is its listing\'s owner');
        delete parsed.owner_id;
      }
      return JSON.stringify(parsed);
    }).sort();
  const parsedRows = (tables: Record<string, string[]>) => Object.fromEntries(Object.entries(tables).map(([table, tableRows]) => [table, tableRows.map((row) => JSON.stringify(JSON.parse(row))).sort()]));
  const rowsKept = Object.fromEntries(Object.entries(after).filter(([table]) => table in before).map(([table, tableRows]) => [table, withoutLater(table, tableRows)]));
  assert.deepEqual(rowsKept, parsedRows(rowsBefore), 'every row of every table, unchanged');
  const version = (row: string) => JSON.parse(row) as { shard: number; version: number };
  assert.deepEqual(versionsAfter!.map((row) => version(row).shard), versionsBefore!.map((row) => version(row).shard), 'the same version rows');
  versionsAfter!.forEach((row, i) => assert.ok(version(row).version >= version(versionsBefore![i]!).version, 'a version row never goes back'));
  assert.deepEqual(
    (await rows(url, 'SELECT version, applied_at FROM marketkit.marketkit_migrations ORDER BY version')).map((r) => [r.version, r.applied_at.startsWith('2026-01-0')]),
    // Wave 2's five, renumbered onto the one list with their times; the rest applied (or, SQLite's alone, recorded) now.
    migrations.map((m) => [m.version, wave2Migrations.slice(0, 5).some((old) => old.name === m.name)]),
    "the bookkeeping moved with its rows, and records the move",
  );
  assert.deepEqual(await rows(url, "SELECT routine_schema FROM information_schema.routines WHERE routine_name = 'marketkit_bump_changes'"), [{ routine_schema: 'marketkit' }]);

  // Through the API, on the tokens and records of wave 2.
  const upgraded = await startServer({ storage: one, studio: newStudio, rateLimiter: newLimiter, webhooks: webhookTargets });
  try {
    const client = as(upgraded, server.seller.token);
    assert.equal((await client.get('/me')).body.id, server.seller.id);
    const asset = await client.get(`/assets/${id}`);
    assert.deepEqual([asset.status, asset.body.status, asset.body.images.length, typeof asset.body.file], [200, 'pending', 1, 'object']);
    assert.deepEqual((await client.get('/webhooks')).body.data.map((e: { id: string }) => e.id), [endpoint.id]);
    const deliveries = await client.get(`/webhooks/${endpoint.id}/deliveries`);
    assert.ok(deliveries.body.data.length > 0, 'the deliveries of wave 2 are listed');
    assert.equal((await client.get(`/studio/projects/${project.body.id}`)).body.name, 'Island');
    assert.deepEqual(await (await fetch(`${upgraded.api}/assets`, idempotent)).json(), keptBody, 'a kept answer is replayed');
    // A new event numbers after wave 2's: the identity's sequence moved with its table.
    const newest = Number((await rows(url, 'SELECT MAX(sequence) AS n FROM marketkit.webhook_events'))[0].n);
    assert.equal((await client.patch(`/assets/${keptBody.id}`, { title: 'After the move' })).status, 200);
    assert.ok(Number((await rows(url, 'SELECT MAX(sequence) AS n FROM marketkit.webhook_events'))[0].n) > newest);
    // And the second instance sees it (the version triggers moved with their tables).
    const otherInstance = await startServer({ storage: two });
    try {
      assert.equal((await as(otherInstance, server.seller.token).get(`/assets/${keptBody.id}`)).body.title, 'After the move');
    } finally {
      await otherInstance.close();
    }
  } finally {
    await upgraded.close();
    await Promise.all([one.close(), two.close(), newStudio.close(), newLimiter.close()]);
  }
});

test("an application's own public.accounts, assets and tokens are untouched while marketkit serve works beside them, in the schema of --database-schema", async (t) => {
  const url = await cluster.createDatabase();
  await rows(
    url,
    `CREATE TABLE accounts (id SERIAL PRIMARY KEY, email TEXT NOT NULL UNIQUE, plan TEXT);
     CREATE TABLE assets (sku TEXT PRIMARY KEY, price NUMERIC(10, 2) NOT NULL, account_id INTEGER REFERENCES accounts (id));
     CREATE TABLE tokens (token TEXT PRIMARY KEY, account_id INTEGER NOT NULL REFERENCES accounts (id), expires DATE);
     INSERT INTO accounts (email, plan) VALUES ('ada@example.com', 'pro'), ('bob@example.com', NULL);
     INSERT INTO assets VALUES ('SKU-1', 9.99, 1), ('SKU-2', 0, 2);
     INSERT INTO tokens VALUES ('tok-ada', 1, '2030-01-01')`,
  );
  const application = async () => ({ objects: await objectsIn(url, 'public'), rows: await snapshot(url, 'public') });
  const before = await application();

  const server = await startCliServer(['--database-url', url, '--database-schema', 'shop_market', '--blobs', 'fs', '--data-dir', tempDir(t)], await keys());
  t.after(() => server.stop('SIGKILL'));
  const seller = as(server.info, server.info.dev_seller.token!);
  const created = await seller.post('/assets', { title: 'Castle Pack', slug: 'castle-pack' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.equal((await seller.get(`/assets/${created.body.id}`)).body.title, 'Castle Pack');
  assert.ok((await seller.get('/tokens')).body.data.length > 0);
  assert.equal((await seller.get('/me')).status, 200);
  // An upload in progress (tus) keeps its offset in the same schema, on the storage's pool.
  const issued = await seller.post(`/assets/${created.body.id}/upload-url`, { filename: 'pack.zip' });
  const tus = { 'tus-resumable': '1.0.0' };
  const location = (await fetch(issued.body.upload_url, { method: 'POST', headers: { ...tus, 'upload-length': '5' } })).headers.get('location')!;
  const appended = await fetch(location, { method: 'PATCH', headers: { ...tus, 'content-type': 'application/offset+octet-stream', 'upload-offset': '0' }, body: 'hello' });
  assert.equal(appended.status, 204);
  assert.deepEqual(await rows(url, 'SELECT storage_path, "offset" FROM shop_market.upload_states'), [{ storage_path: issued.body.storage_path, offset: '5' }]);
  // The CLI's other commands find the same schema through the environment.
  const listed = await runCli(['token', 'list', '--account', 'dev-seller', '--json'], { MARKETKIT_DATABASE_URL: url, MARKETKIT_DATABASE_SCHEMA: 'shop_market' });
  assert.equal(listed.code, 0, listed.stderr);
  await server.stop('SIGTERM');

  assert.deepEqual(await application(), before, "the application's tables, columns and rows are as they were");
  assert.deepEqual(await rows(url, "SELECT slug FROM shop_market.assets"), [{ slug: 'castle-pack' }]);
  assert.deepEqual(await rows(url, "SELECT to_regnamespace('marketkit') AS s"), [{ s: null }], 'only the schema asked for');
});

test('the schema is named by option or flag, and a name PostgreSQL would need quoted or owns is refused naming the option', async () => {
  const url = await cluster.createDatabase();
  for (const schema of ['Shop', 'my-shop', '1shop', 'pg_shop', 'information_schema', 'x'.repeat(64), '']) {
    await assert.rejects(postgresStorage({ url, schema }), (error: Error) => {
      assert.equal(error.name, 'ConfigurationError');
      assert.match(error.message, /^marketkit postgresStorage: schema must /);
      return true;
    });
  }
  await assert.rejects(postgresRateLimiter({ url, schema: 'Shop' }), /^ConfigurationError: marketkit postgresRateLimiter: schema must be a lowercase PostgreSQL schema name|marketkit postgresRateLimiter: schema must be a lowercase/);
  const bad = await runCli(['migrate', '--database-url', url, '--database-schema', 'My Shop']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^marketkit migrate: --database-schema must be a lowercase PostgreSQL schema name: letters a-z, digits and _, not starting with a digit, at most 63 characters \(got "My Shop"\)\n$/);
  const badEnv = await runCli(['migrate', '--database-url', url], { MARKETKIT_DATABASE_SCHEMA: 'pg_mine' });
  assert.match(badEnv.stderr, /MARKETKIT_DATABASE_SCHEMA must not be "pg_mine": that schema belongs to PostgreSQL/);
  const stray = await runCli(['token', 'list', '--account', 'x', '--data-dir', '/nonexistent-dir', '--database-schema', 'shop']);
  assert.equal(stray.code, 2);
  assert.match(stray.stderr, /--database-schema names a schema of the PostgreSQL database, and there is none: give --database-url/);
  assert.deepEqual(await rows(url, "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY 1"), [{ nspname: 'public' }], 'nothing was made');
  // Given, through migrate; a second deployment in another schema of the same database is its own.
  const made = await runCli(['migrate', '--database-url', url, '--database-schema', 'shop_two', '--json']);
  assert.equal(made.code, 0, made.stderr);
  assert.equal(JSON.parse(made.stdout).to, schemaVersion);
  const [a, b] = [await postgresStorage({ url, schema: 'shop_two' }), await postgresStorage({ url })];
  try {
    await a.insertCategory({ id: 'c1', slug: 'maps', name: 'Maps' });
    assert.deepEqual((await b.listCategories()).length, 0, 'the default schema is another deployment');
    assert.deepEqual((await a.listCategories()).map((c) => c.slug), ['maps']);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test('a role that may not create schemas is told what to do, and needs nothing more than a schema made for it (nothing in public)', async () => {
  const url = await cluster.createDatabase();
  const role = `shop_${crypto.randomUUID().slice(0, 8)}`;
  await rows(url, `CREATE ROLE ${role} LOGIN`);
  const asRole = new URL(url);
  asRole.username = role;
  await assert.rejects(postgresStorage({ url: asRole.href }), (error: Error) => {
    assert.equal(error.name, 'ConfigurationError');
    assert.match(error.message, new RegExp(`the role may not create the schema "marketkit" in the database at .*: create it once as a role that may \\("CREATE SCHEMA marketkit AUTHORIZATION <this role>"\\), or grant this role CREATE on the database`));
    return true;
  });
  await rows(url, `CREATE SCHEMA marketkit AUTHORIZATION ${role}`);
  const storage = await postgresStorage({ url: asRole.href });
  try {
    await storage.insertCategory({ id: 'c1', slug: 'maps', name: 'Maps' });
    assert.deepEqual((await storage.listCategories()).map((c) => c.slug), ['maps']);
  } finally {
    await storage.close();
  }
  assert.deepEqual(await objectsIn(url, 'public'), []);
});

test('an older layout (schema version 3, in public) gets the migrations it lacks where it is, then moves', async () => {
  const url = await cluster.createDatabase();
  await wave2Layout(url, { upTo: 3 });
  await rows(url, "INSERT INTO public.categories (id, slug, name) VALUES ('c1', 'maps', 'Maps')");
  const report = await migratePostgres({ url });
  // Its third, change-version, is the one list's sixth: renumbered, then the rest applied.
  const renumbered = migrations.find((m) => m.name === wave2Migrations[2]!.name)!.version;
  assert.deepEqual(report.renumbered, { from: 3, to: renumbered });
  assert.deepEqual(report.applied.map((m) => m.version), migrations.filter((m) => m.version > renumbered).map((m) => m.version));
  assert.deepEqual(await objectsIn(url, 'public'), []);
  const storage = await postgresStorage({ url });
  try {
    assert.deepEqual((await storage.listCategories()).map((c) => c.slug), ['maps']);
  } finally {
    await storage.close();
  }
});
