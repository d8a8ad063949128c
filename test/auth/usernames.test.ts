/**
 * Security finding 6 of wave 2 (docs/security.md, "Findings of the wave-2 security test"):
 * usernames that differed only in case were two accounts, and a username equal to another
 * account's UUID was accepted, so every admin lookup by it reached the other account. Usernames are
 * now unique ignoring case and never shaped like a UUID, on every store; the migration renames what
 * a database already holds (docs/moderation.md, "Usernames").
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { postgresStorage } from '../../adapters/postgres/index.js';
import { sqliteStorage } from '../../adapters/sqlite/index.js';
import { migrations } from '../../adapters/sql/migrations/migrations.js';
import type { StoragePort } from '../../core/ports/storage.js';
import { startServer, type TestServer } from '../fixtures/server.js';
import { sharedCluster, startServerOn, stopStores, storeNames } from '../fixtures/stores.js';
import { inSchema } from '../fixtures/postgres-database.js';

after(stopStores);

const serviceKey = 'test-service-key-0123456789abcdef0123456789';

async function admin(server: TestServer, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}/api/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${serviceKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: await response.json() };
}

for (const store of storeNames) {
  describe(`usernames on ${store}`, () => {
    test('a name that differs only in case is taken; a UUID-shaped name is refused; a lookup ignores case', async (t) => {
      const server = await startServerOn(store, { serviceKey });
      t.after(() => server.close());
      const castle = await admin(server, 'POST', '/accounts', { username: 'Castle' });
      assert.equal(castle.status, 200);
      const twin = await admin(server, 'POST', '/accounts', { username: 'castle' });
      assert.equal(twin.status, 409, JSON.stringify(twin.body));
      assert.equal(twin.body.details[0].path, 'username');
      const shadow = await admin(server, 'POST', '/accounts', { username: server.seller.id });
      assert.equal(shadow.status, 400, JSON.stringify(shadow.body));
      assert.equal(shadow.body.details[0].path, 'username');
      assert.match(shadow.body.error, /not shaped like a UUID/);
      assert.equal((await admin(server, 'POST', '/accounts', { username: server.seller.id.toUpperCase() })).status, 400);
      // Every lookup by a name reaches the one account of that name.
      assert.equal((await admin(server, 'GET', '/accounts/CASTLE')).body.id, castle.body.id);
      assert.equal((await admin(server, 'GET', `/accounts/${server.seller.id}`)).body.id, server.seller.id);
    });
  });
}

/** What a database held before the rule: one account copied under another id, name and creation time. */
interface OldRows {
  open(): Promise<StoragePort & { close(): Promise<void> }>;
  /** Runs SQL on the database directly (the adapter closed). */
  sql(statements: string[], params: string[][]): Promise<void>;
  cleanup(): Promise<void>;
}

async function sqliteRows(): Promise<OldRows> {
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-usernames-'));
  const path = join(dir, 'marketkit.db');
  return {
    open: () => sqliteStorage({ path }),
    async sql(statements, params) {
      const db = new Database(path);
      try {
        statements.forEach((statement, i) => db.prepare(statement).run(...(params[i] ?? [])));
      } finally {
        db.close();
      }
    },
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresRows(): Promise<OldRows> {
  const url = await (await sharedCluster()).createDatabase();
  return {
    open: () => postgresStorage({ url, poolSize: 2 }),
    async sql(statements, params) {
      const client = new pg.Client({ connectionString: inSchema(url) });
      await client.connect();
      try {
        for (const [i, statement] of statements.entries()) await client.query(statement.replace(/\?/g, (_, at: number) => `$${statement.slice(0, at).split('?').length}`), params[i] ?? []);
      } finally {
        await client.end();
      }
    },
    async cleanup() {},
  };
}

/**
 * What the migrations after the tested one made, undone so that they run again after it (each new
 * migration adds its undo here): upload states; the upload reservations; the kept list totals and their
 * change counters (on PostgreSQL sharded per seller too: dropped with the table and its functions); the
 * callers' version (on PostgreSQL its function is renamed away and made to bump only the version, as
 * its triggers still name it until the migration makes them again); the outbox events' traceparent; on SQLite the scheduler's partial index;
 * the versions of published listings (their gallery column goes with them); the dashboard's tables; the roles and the audit log; the passkeys and their challenges (the sweep's indexes of migration 26 go with the dashboard's tables); the uploads' owner; the listings' word index.
 */
const sqliteLater = [
  'DROP TABLE upload_states',
  'ALTER TABLE uploads DROP COLUMN reserved',
  ...['assets_counted_insert', 'assets_counted_delete', 'assets_counted_update', 'assets_moved', 'accounts_counted_insert', 'accounts_counted_delete'].map((name) => `DROP TRIGGER ${name}`),
  'DROP TABLE asset_counts',
  'DROP TABLE row_counts',
  ...['accounts_insert', 'accounts_update', 'accounts_delete', 'tokens_insert', 'tokens_delete', 'tokens_update'].map((name) => `DROP TRIGGER ${name}_callers`),
  'DROP TABLE marketkit_callers',
  'ALTER TABLE webhook_events DROP COLUMN traceparent',
  'DROP INDEX assets_due_scheduled',
  'CREATE INDEX assets_due_scheduled ON assets (status, scheduled_publish_at, id)',
  'DROP TABLE asset_versions',
  'DROP TABLE dashboard_sessions',
  'DROP TABLE dashboard_sign_in_links',
  'DROP TABLE audit_log',
  'ALTER TABLE accounts DROP COLUMN is_moderator',
  'ALTER TABLE accounts DROP COLUMN is_operator',
  'DROP TABLE dashboard_passkey_challenges',
  'DROP TABLE dashboard_passkeys',
  'DROP INDEX uploads_by_owner',
  'ALTER TABLE uploads DROP COLUMN owner_id',
  ...['asset_search_added', 'asset_search_changed', 'asset_search_removed'].map((name) => `DROP TRIGGER ${name}`),
  'DROP TABLE asset_search',
  'DROP TABLE asset_search_keys',
];
const postgresLater = [
  'DROP TABLE upload_states',
  'ALTER TABLE uploads DROP COLUMN reserved',
  ...['assets_counted_insert ON assets', 'assets_counted_delete ON assets', 'assets_counted_update ON assets', 'accounts_counted ON accounts'].map((name) => `DROP TRIGGER ${name}`),
  ...['marketkit_count_assets_added', 'marketkit_count_assets_removed', 'marketkit_count_assets_moved', 'marketkit_count_accounts'].map((name) => `DROP FUNCTION ${name}()`),
  'DROP TABLE asset_counts',
  'DROP TABLE row_counts',
  'ALTER TABLE marketkit_changes DROP COLUMN callers',
  'ALTER FUNCTION marketkit_bump_callers() RENAME TO marketkit_bump_callers_undone',
  `CREATE OR REPLACE FUNCTION marketkit_bump_callers_undone() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE marketkit.marketkit_changes SET version = version + 1 WHERE shard = pg_backend_pid() % 16;
      RETURN NULL;
    END
    $$`,
  'ALTER TABLE webhook_events DROP COLUMN traceparent',
  'DROP TABLE asset_versions',
  'DROP TABLE dashboard_sessions',
  'DROP TABLE dashboard_sign_in_links',
  'DROP TABLE audit_log',
  'ALTER TABLE accounts DROP COLUMN is_moderator',
  'ALTER TABLE accounts DROP COLUMN is_operator',
  'DROP TABLE dashboard_passkey_challenges',
  'DROP TABLE dashboard_passkeys',
  'ALTER TABLE uploads DROP COLUMN owner_id',
  'DROP INDEX assets_search',
  'DROP FUNCTION marketkit_grams(text)',
];

/** The migration's number, the same on both databases. */
const version = migrations.find((migration) => migration.name === 'usernames-ignore-case')!.version;
const stores = {
  sqlite: { index: 'accounts_username_nocase', make: sqliteRows, later: sqliteLater },
  postgres: { index: 'accounts_username_lower', make: postgresRows, later: postgresLater },
};

for (const [store, { index, make, later }] of Object.entries(stores)) {
  test(`the ${store} migration keeps the oldest of names that differ in case and renames the rest and UUID-shaped names`, async (t) => {
    const rows = await make();
    t.after(() => rows.cleanup());
    const first = await rows.open();
    const server = await startServer({ storage: first, serviceKey });
    const castle = (await admin(server, 'POST', '/accounts', { username: 'Castle' })).body;
    await server.close();
    await first.close();
    const twinId = 'ffffffff-0000-4000-8000-000000000001';
    const uuidNamed = 'eeeeeeee-0000-4000-8000-000000000002';
    // Back to the schema before the migration, with what it allowed.
    await rows.sql(
      [
        `DROP INDEX ${index}`,
        'DELETE FROM marketkit_migrations WHERE version >= ?',
        'CREATE TEMP TABLE old_rows AS SELECT * FROM accounts WHERE id = ?',
        "UPDATE old_rows SET id = ?, username = 'castle', created_at = '2030-01-01T00:00:00.000Z'",
        'INSERT INTO accounts SELECT * FROM old_rows',
        'UPDATE old_rows SET id = ?, username = ?',
        'INSERT INTO accounts SELECT * FROM old_rows',
        // The migrations after this one go back too (they run again), once the old rows are in.
        ...later,
      ],
      [[], [String(version)], [castle.id], [twinId], [], [uuidNamed, castle.id], []],
    );
    const migrated = await rows.open();
    const after = await startServer({ storage: migrated, serviceKey });
    t.after(async () => {
      await after.close();
      await migrated.close();
    });
    assert.equal((await admin(after, 'GET', `/accounts/${castle.id}`)).body.username, 'Castle', 'the oldest keeps its name');
    assert.equal((await admin(after, 'GET', `/accounts/${twinId}`)).body.username, 'castle-ffffffff');
    assert.equal((await admin(after, 'GET', `/accounts/${uuidNamed}`)).body.username, `${castle.id.slice(0, 31)}-eeeeeeee`);
    assert.equal((await admin(after, 'GET', '/accounts/castle')).body.id, castle.id, 'the name reaches one account');
    assert.equal((await admin(after, 'POST', '/accounts', { username: 'CASTLE' })).status, 409, 'and the index holds');
  });
}
