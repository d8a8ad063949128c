import assert from 'node:assert/strict';
import { after } from 'node:test';
import pg from 'pg';
import { postgresStorage, schemaVersion, type PostgresStorage } from '../../adapters/postgres/index.js';
import { strictChangeVersion } from '../../adapters/postgres/change-version.js';
import { openPgDriver, type PgDriver } from '../../adapters/postgres/driver.js';
import { versionedTokenColumns } from '../../adapters/sql/migrations/006-change-version.js';
import { sql, statements } from '../../adapters/postgres/queries.js';
import { migrations } from '../../adapters/sql/migrations/migrations.js';
import { runStorageSuite } from '../../conformance/index.js';
import { accountRecord, at, endpointRecord, outboxEvent } from '../../conformance/ports/sample-records.js';
import { inSchema, queryRows } from '../fixtures/postgres-database.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('postgresql');

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

/** The database each store was opened on, so that a peer opens the same one. */
const urls = new WeakMap<PostgresStorage, string>();
const open = async (url: string) => {
  const storage = await postgresStorage({ url, poolSize: 4 });
  urls.set(storage, url);
  return storage;
};

test('postgres: ten instances opening one new database at once migrate it once', async () => {
  const url = await cluster.createDatabase();
  const stores = await Promise.all(Array.from({ length: 10 }, () => postgresStorage({ url, poolSize: 2 })));
  try {
    const applied = await queryRows(url, 'SELECT version, name FROM marketkit_migrations ORDER BY version');
    assert.deepStrictEqual(
      applied.map((r) => r.version),
      migrations.map((migration) => migration.version),
    );
    for (const store of stores) await store.ping();
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
  // Opening it again applies nothing.
  await (await postgresStorage({ url })).close();
  assert.equal((await queryRows(url, 'SELECT COUNT(*)::int AS n FROM marketkit_migrations'))[0]?.n, migrations.length);
});

test('postgres: a database written by a newer MarketKit is refused with what to do', async () => {
  const url = await cluster.createDatabase();
  await (await postgresStorage({ url })).close();
  await queryRows(url, 'INSERT INTO marketkit_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [schemaVersion + 1, 'from-the-future', new Date().toISOString()]);
  await assert.rejects(postgresStorage({ url }), (error: Error) => {
    assert.equal(error.name, 'ConfigurationError');
    assert.match(error.message, new RegExp(`^marketkit postgresStorage: the database at 127\\.0\\.0\\.1:\\d+/\\w+ has schema version ${schemaVersion + 1}, written by a newer MarketKit; this one knows versions up to ${schemaVersion}\\. Upgrade marketkit`));
    return true;
  });
});

test('postgres: bad options say what to change', async () => {
  await assert.rejects(postgresStorage({}), /marketkit postgresStorage: give either url .* or connection/);
  await assert.rejects(postgresStorage({ url: 'mysql://x' }), /marketkit postgresStorage: url must start with postgres:\/\//);
  await assert.rejects(postgresStorage({ url: cluster.url, poolSize: 0 }), /marketkit postgresStorage: poolSize must be 1 or more/);
});

test('postgres: a database that is down makes calls reject with a clear error, and the store recovers when it is back', async () => {
  const url = await cluster.createDatabase();
  const errors: Error[] = [];
  const storage = await postgresStorage({ url, onError: (error) => errors.push(error) });
  try {
    await storage.ping();
    await cluster.pause();
    // The pool's idle connection was ended by the server: reported to onError, not thrown at the process.
    await assert.rejects(storage.ping(), (error: Error) => {
      assert.equal(error.name, 'PostgresUnavailable');
      assert.equal((error as { code?: string }).code, 'STORAGE_UNAVAILABLE');
      assert.match(error.message, /^marketkit postgresStorage: the PostgreSQL database at 127\.0\.0\.1:\d+\/\w+ is unavailable \(.+\); is the server running and reachable\?$/);
      assert.doesNotMatch(error.message, /password/);
      return true;
    });
    await assert.rejects(storage.getAccount('x'), { name: 'PostgresUnavailable' });
    await assert.rejects(storage.updateAccount('x', { updated_at: new Date().toISOString() }), { name: 'PostgresUnavailable' });
  } finally {
    await cluster.resume();
  }
  // No restart of the store: the next call opens a new connection.
  await storage.ping();
  assert.equal(await storage.getAccount('x'), null);
  await storage.close();
  assert.ok(errors.length <= 1, `idle-connection errors reported: ${errors.length}`);
});

test('postgres: every query the adapter makes is served by an index, never by a scan of a table', async () => {
  const url = await cluster.createDatabase();
  await (await postgresStorage({ url })).close();
  const client = new pg.Client({ connectionString: inSchema(url) });
  await client.connect();
  try {
    // The generic plan (the one for any parameters), with scans and sorts made as costly as
    // PostgreSQL can: one that still shows up has no index to use instead.
    await client.query("SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off; SET enable_sort = off");
    // Inserts and the full list of categories (a short table, sorted in code) read no index by design,
    // nor does the read cache's version (the sum of sixteen rows) or a notification.
    const noLookup = new Set(['insertAccount', 'insertToken', 'insertCategory', 'insertImage', 'listCategories', 'ping', 'changeVersion', 'notifyChange']);
    // An asset's images (ten at most) and issued uploads are found by index and sorted in a few bytes.
    // An offset page's ids come from an index in order; the page (101 rows at most) is sorted again after the join.
    // So is a page from an offset anchor (adapters/sql/offset-anchors.ts), joined to its counter's row.
    const smallSort = new Set(['listImages', 'uploadsOfAsset', 'listAssets', 'listAssetsByStatus', 'listAssetsInStatus', 'anchoredAssets', 'anchoredAssetsByStatus', 'anchoredAssetsInStatus']);
    for (const [name, text] of Object.entries(sql)) {
      if (noLookup.has(name)) continue;
      const parameters = new Set(text.match(/\$\d+/g) ?? []).size;
      await client.query(`PREPARE q AS ${text}`);
      try {
        const plan = (await client.query(`EXPLAIN EXECUTE q${parameters ? `(${Array(parameters).fill('NULL').join(', ')})` : ''}`)).rows.map((r) => r['QUERY PLAN'] as string);
        for (const step of plan) {
          assert.doesNotMatch(step, /Seq Scan on (?!pg_)/, `${name}: ${plan.join('\n')}`);
          if (!smallSort.has(name)) assert.doesNotMatch(step, /-> +Sort|^Sort/, `${name} sorts without an index: ${plan.join('\n')}`);
        }
      } finally {
        await client.query('DEALLOCATE q');
      }
    }
  } finally {
    await client.end();
  }
});

const driverSettings = { schema: 'marketkit', poolSize: 4, statementTimeoutMs: 0, connectTimeoutMs: 5000, idleTimeoutMs: 10_000, retries: 5 };

test('postgres driver: a deadlocked transaction runs again, and both commit', async () => {
  const url = await cluster.createDatabase();
  const db = await openPgDriver({ ...driverSettings, schema: 'public', url }, 'test');
  try {
    await db.query('CREATE TABLE pair (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
    await db.query('INSERT INTO pair VALUES (1, 0), (2, 0)');
    // Each locks one row, waits until the other has too, then wants the other's: PostgreSQL ends one with 40P01.
    let locked = 0;
    let attempts = 0;
    const bothLocked = async () => {
      while (locked < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    const cross = (first: number, second: number) =>
      db.transaction(async (tx) => {
        attempts++;
        await tx.query('UPDATE pair SET n = n + 1 WHERE id = $1', [first]);
        locked++;
        await bothLocked();
        await tx.query('UPDATE pair SET n = n + 1 WHERE id = $1', [second]);
      });
    await Promise.all([cross(1, 2), cross(2, 1)]);
    assert.equal(attempts, 3, 'one of the two ran twice');
    assert.deepStrictEqual((await db.query('SELECT n FROM pair ORDER BY id')).rows, [{ n: 2 }, { n: 2 }]);
  } finally {
    await db.close();
  }
});

test('postgres driver: a statement past statementTimeoutMs is cancelled', async () => {
  const db = await openPgDriver({ ...driverSettings, statementTimeoutMs: 100, url: cluster.url }, 'test');
  try {
    await assert.rejects(db.query('SELECT pg_sleep(2)'), { code: '57014' });
    await db.query('SELECT 1');
  } finally {
    await db.close();
  }
});

test("postgres: a token's recorded use moves no version, a change of any other column of tokens does", async () => {
  const url = await cluster.createDatabase();
  const [store, peer] = [await open(url), await open(url)];
  try {
    const account = { id: crypto.randomUUID(), username: 'u', display_name: null, bio: null, website: null, avatar_url: null, country: null, seller_status: 'none', is_restricted: false, is_suspended: false, is_moderator: false, is_operator: false, payouts_connected: false, subscription_tier: 'free', plan_features: [], socials: { twitter: null, youtube: null, twitch: null, tiktok: null, discord: null, github: null, website: null }, hire: { available: false, rate: null, contact: null }, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' } as const;
    await store.insertAccount({ ...account, plan_features: [] });
    const token = { id: crypto.randomUUID(), account_id: account.id, name: 't', prefix: 'mk_', hash: 'h'.repeat(64), scopes: ['profile:read' as const], created_at: account.created_at, last_used_at: null, expires_at: null, revoked_at: null };
    await store.insertToken(token);
    const before = await store.changeVersion!();
    await peer.touchToken(token.id, '2026-01-01T00:01:00.000Z');
    await store.touchToken(token.id, '2026-01-01T00:02:00.000Z');
    assert.equal(await store.changeVersion!(), before);
    assert.equal((await store.findTokenByHash(token.hash))?.last_used_at, '2026-01-01T00:02:00.000Z');
    await peer.revokeToken(account.id, token.id, '2026-01-01T00:03:00.000Z');
    assert.notEqual(await store.changeVersion!(), before);
    // The trigger names every column of tokens but last_used_at: a column added later must be added there too.
    const columns = (await queryRows(url, "SELECT column_name FROM information_schema.columns WHERE table_name = 'tokens' ORDER BY column_name")).map((r) => r.column_name as string);
    const triggered = (await queryRows(url, "SELECT event_object_column FROM information_schema.triggered_update_columns WHERE trigger_name = 'tokens_updated' ORDER BY event_object_column")).map((r) => r.event_object_column as string);
    assert.deepEqual(triggered, columns.filter((c) => c !== 'last_used_at'));
    assert.deepEqual([...versionedTokenColumns].sort(), triggered);
  } finally {
    await store.close();
    await peer.close();
  }
});

test('postgres: strict version questions: one on the wire at a time, shared only by callers that came before it was sent', async () => {
  const url = await cluster.createDatabase();
  const store = await open(url);
  const db = await openPgDriver({ ...driverSettings, url }, 'test');
  try {
    // The answer to each version question comes 300 ms after the database gave it, as over a slow network.
    let asked = 0;
    const slow: PgDriver = {
      ...db,
      async query(statement, params) {
        if (statement !== statements.changeVersion) return db.query(statement, params);
        asked++;
        const answer = await db.query(statement, params);
        await new Promise((resolve) => setTimeout(resolve, 300));
        return answer;
      },
    };
    const { changeVersion } = strictChangeVersion(slow);
    const before = await changeVersion();
    const inFlight = changeVersion();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Twenty requests arrive while it is on the wire: they share the next question.
    const waiting = Array.from({ length: 20 }, () => changeVersion());
    await store.insertCategory({ id: crypto.randomUUID(), slug: 'props', name: 'Props' });
    // A request that arrives after the write resolved must not take the answer on the wire (its
    // snapshot may predate the write): it waits for a question sent after it came.
    const after = changeVersion();
    assert.equal(await inFlight, before, 'the question on the wire was answered from before the write');
    assert.notEqual(await after, before, 'a caller that came after the write resolved got an answer from before it');
    assert.equal(new Set(await Promise.all(waiting)).size, 1, 'the twenty that waited shared one question');
    // One for the first caller, one on the wire, one for those that waited (the last caller among
    // them, unless the write took so long that their question was sent before it resolved).
    assert.ok(asked <= 4, `${asked} questions`);
  } finally {
    await db.close();
    await store.close();
  }
});

test('postgres: maxStalenessMs must be a whole number of 10 or more', async () => {
  await assert.rejects(postgresStorage({ url: cluster.url, maxStalenessMs: 5 }), /marketkit postgresStorage: maxStalenessMs must be 10 or more/);
  await assert.rejects(postgresStorage({ url: cluster.url, maxStalenessMs: 1.5 }), /maxStalenessMs must be a whole number/);
});

test('postgres: idempotency keys are in a logged table (kept through a crash) that no trigger watches: claims, answers and purges move no version', async () => {
  const url = await cluster.createDatabase();
  const [store, peer] = [await open(url), await open(url)];
  try {
    const accountId = crypto.randomUUID();
    const before = await store.changeVersion!();
    const claim = { accountId, key: 'k', fingerprint: 'f', holder: 'h', nowMs: Date.now(), leaseMs: 1000, ttlMs: 5000 };
    assert.equal((await peer.claimIdempotencyKey(claim)).outcome, 'claimed');
    await peer.finishIdempotencyKey(accountId, 'k', 'h', { status: 200, body: '{}' });
    assert.equal((await store.claimIdempotencyKey({ ...claim, holder: 'h2' })).outcome, 'done');
    assert.equal(await store.purgeIdempotencyKeys(claim.nowMs + 5000, 10), 1);
    assert.equal(await store.changeVersion!(), before);
    assert.deepEqual(await queryRows(url, "SELECT trigger_name FROM information_schema.triggers WHERE event_object_table = 'idempotency_keys'"), []);
    // 'p': permanent, WAL-logged (an UNLOGGED table is emptied by crash recovery).
    assert.deepEqual(await queryRows(url, "SELECT relpersistence FROM pg_class WHERE relname = 'idempotency_keys'"), [{ relpersistence: 'p' }]);
  } finally {
    await store.close();
    await peer.close();
  }
});

test('postgres: a webhook claim skips a delivery another transaction has locked (FOR UPDATE SKIP LOCKED) instead of waiting for it', async () => {
  const url = await cluster.createDatabase();
  const store = await open(url);
  const locker = new pg.Client({ connectionString: inSchema(url) });
  await locker.connect();
  try {
    const account = accountRecord();
    await store.insertAccount(account);
    await store.insertWebhookEndpoint(endpointRecord(account.id), 10);
    const queued = [];
    for (let i = 0; i < 3; i++) queued.push(...(await store.insertWebhookEvent(outboxEvent(account.id, `s${i}`, 'asset.updated', i))));
    // Another session holds the earliest delivery's row, as a claim in flight on another instance would.
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM webhook_deliveries WHERE id = $1 FOR UPDATE', [queued[0]!.id]);
    const started = Date.now();
    const claimed = await store.claimWebhookDeliveries({ holder: 'w', nowMs: Date.parse(at(10)), leaseMs: 60_000, limit: 10 });
    assert.ok(Date.now() - started < 2000, 'the claim did not wait for the lock');
    assert.deepEqual(claimed.map((c) => c.delivery.id), [queued[1]!.id, queued[2]!.id]);
    await locker.query('ROLLBACK');
    // Released, it is the next claim's.
    assert.deepEqual((await store.claimWebhookDeliveries({ holder: 'w2', nowMs: Date.parse(at(10)), leaseMs: 60_000, limit: 10 })).map((c) => c.delivery.id), [queued[0]!.id]);
  } finally {
    await locker.end();
    await store.close();
  }
});

test('postgres: the webhook tables are logged (an event survives a crash) and no trigger watches them: endpoints, claims and attempts move no version', async () => {
  const url = await cluster.createDatabase();
  const [store, peer] = [await open(url), await open(url)];
  try {
    const account = accountRecord();
    await store.insertAccount(account);
    const endpoint = endpointRecord(account.id);
    const before = await store.changeVersion!();
    await peer.insertWebhookEndpoint(endpoint, 10);
    await peer.updateWebhookEndpoint(account.id, endpoint.id, { description: 'changed', updated_at: at(1) });
    const [delivery] = await peer.insertWebhookEvent(outboxEvent(account.id, 's', 'webhook.test', 1), endpoint.id);
    await peer.claimWebhookDeliveries({ holder: 'w', nowMs: Date.parse(at(2)), leaseMs: 60_000, limit: 10 });
    assert.equal(await peer.finishWebhookAttempt(delivery!.id, 'w', { result: 'succeeded', attempt: { at: at(2), status_code: 200, error: null, latency_ms: 3 } }), true);
    assert.equal(await store.changeVersion!(), before);
    for (const table of ['webhook_endpoints', 'webhook_events', 'webhook_deliveries']) {
      assert.deepEqual(await queryRows(url, 'SELECT trigger_name FROM information_schema.triggers WHERE event_object_table = $1', [table]), [], table);
      assert.deepEqual(await queryRows(url, 'SELECT relpersistence FROM pg_class WHERE relname = $1', [table]), [{ relpersistence: 'p' }], table);
    }
  } finally {
    await store.close();
    await peer.close();
  }
});

// Last: the tests above stop the server once, which costs a checkpoint of every database made
// so far. Each store of the suite is a copy of one database migrated once (migrating is tested above).
let migrated: string | undefined;
runStorageSuite({
  test,
  prefix: 'postgres: ',
  async create() {
    if (!migrated) {
      migrated = await cluster.createDatabase();
      await (await postgresStorage({ url: migrated })).close();
    }
    return open(await cluster.createDatabase({ template: migrated }));
  },
  dispose: (storage) => storage.close(),
  capabilities: {
    // A second pool on the same database, as a second server instance would open it.
    openPeer: (storage) => open(urls.get(storage)!),
  },
});
