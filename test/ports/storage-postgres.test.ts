import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { postgresStorage, schemaVersion, type PostgresStorage } from '../../adapters/postgres/index.js';
import { openPgDriver } from '../../adapters/postgres/driver.js';
import { sql } from '../../adapters/postgres/queries.js';
import { runStorageSuite } from '../../conformance/index.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';

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

/** Rows of one query on the database at `url`. */
async function query(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

test('postgres: ten instances opening one new database at once migrate it once', async () => {
  const url = await cluster.createDatabase();
  const stores = await Promise.all(Array.from({ length: 10 }, () => postgresStorage({ url, poolSize: 2 })));
  try {
    const applied = await query(url, 'SELECT version, name FROM marketkit_migrations ORDER BY version');
    assert.deepStrictEqual(
      applied.map((r) => r.version),
      Array.from({ length: schemaVersion }, (_, i) => i + 1),
    );
    for (const store of stores) await store.ping();
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
  // Opening it again applies nothing.
  await (await postgresStorage({ url })).close();
  assert.equal((await query(url, 'SELECT COUNT(*)::int AS n FROM marketkit_migrations'))[0]?.n, schemaVersion);
});

test('postgres: a database written by a newer MarketKit is refused with what to do', async () => {
  const url = await cluster.createDatabase();
  await (await postgresStorage({ url })).close();
  await query(url, 'INSERT INTO marketkit_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [schemaVersion + 1, 'from-the-future', new Date().toISOString()]);
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
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // The generic plan (the one for any parameters), with scans and sorts made as costly as
    // PostgreSQL can: one that still shows up has no index to use instead.
    await client.query("SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off; SET enable_sort = off");
    // Inserts and the full list of categories (a short table, sorted in code) read no index by design.
    const noLookup = new Set(['insertAccount', 'insertToken', 'insertCategory', 'insertImage', 'listCategories', 'ping']);
    // An asset's images (ten at most) and issued uploads are found by index and sorted in a few bytes.
    const smallSort = new Set(['listImages', 'uploadsOfAsset']);
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

const driverSettings = { poolSize: 4, statementTimeoutMs: 0, connectTimeoutMs: 5000, idleTimeoutMs: 10_000, retries: 5 };

test('postgres driver: a deadlocked transaction runs again, and both commit', async () => {
  const url = await cluster.createDatabase();
  const db = await openPgDriver({ ...driverSettings, url }, 'test');
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
  skip: {
    changes: 'no changeVersion() yet: every request reads the database (the read cache across instances is a later step of issue 21)',
  },
  capabilities: {
    // A second pool on the same database, as a second server instance would open it.
    openPeer: (storage) => open(urls.get(storage)!),
  },
});
