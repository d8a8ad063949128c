import assert from 'node:assert/strict';
import { after } from 'node:test';
import pg from 'pg';
import { postgresStorage, postgresStudio, type PostgresStudio } from '../../adapters/postgres/index.js';
import { migrations } from '../../adapters/sql/migrations/migrations.js';
import { studioSql } from '../../adapters/postgres/studio-storage.js';
import { runStudioSuite } from '../../conformance/ports/index.js';
import { inSchema } from '../fixtures/postgres-database.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { needs } from '../fixtures/parts.js';

const { before, test } = needs('postgresql');

let cluster: PostgresCluster;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

const urls = new WeakMap<PostgresStudio, string>();
const open = async (url: string) => {
  const studio = await postgresStudio({ url, poolSize: 4 });
  urls.set(studio, url);
  return studio;
};

async function query(url: string, text: string) {
  const client = new pg.Client({ connectionString: inSchema(url) });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

test('postgres: the studio shares the listing database: one migration history, both open in either order', async () => {
  const url = await cluster.createDatabase();
  const studio = await postgresStudio({ url });
  const storage = await postgresStorage({ url });
  await storage.close();
  await studio.close();
  assert.deepStrictEqual((await query(url, 'SELECT name FROM marketkit_migrations ORDER BY version')).map((r) => r.name), migrations.map((m) => m.name));
});

test('postgres: every studio query is served by an index, never by a scan of the table', async () => {
  const url = await cluster.createDatabase();
  await (await postgresStudio({ url })).close();
  const client = new pg.Client({ connectionString: inSchema(url) });
  await client.connect();
  try {
    await client.query('SET plan_cache_mode = force_generic_plan; SET enable_seqscan = off; SET enable_sort = off');
    for (const [name, text] of Object.entries(studioSql)) {
      if (name === 'insert' || name === 'ping' || name === 'lockProject') continue;
      const parameters = new Set(text.match(/\$\d+/g) ?? []).size;
      await client.query(`PREPARE q AS ${text}`);
      try {
        const plan = (await client.query(`EXPLAIN EXECUTE q(${Array(parameters).fill('NULL').join(', ')})`)).rows.map((r) => r['QUERY PLAN'] as string);
        for (const step of plan) {
          // The recursive walk reads its own work table, not a scan of studio_records.
          assert.doesNotMatch(step, /Seq Scan on (?!pg_)/, `${name}: ${plan.join('\n')}`);
          assert.doesNotMatch(step, /-> +Sort|^Sort/, `${name} sorts without an index: ${plan.join('\n')}`);
        }
      } finally {
        await client.query('DEALLOCATE q');
      }
    }
  } finally {
    await client.end();
  }
});

test('postgres: bad options say what to change', async () => {
  await assert.rejects(postgresStudio({}), /marketkit postgresStudio: give either url .* or connection/);
});

// Each store of the suite is a copy of one database migrated once.
let migrated: string | undefined;
runStudioSuite({
  test,
  prefix: 'postgres: ',
  async create() {
    if (!migrated) {
      migrated = await cluster.createDatabase();
      await (await postgresStudio({ url: migrated })).close();
    }
    return open(await cluster.createDatabase({ template: migrated }));
  },
  dispose: (studio) => studio.close(),
  capabilities: {
    // A second pool on the same database, as a second server instance would open it.
    openPeer: (studio) => open(urls.get(studio)!),
  },
});
