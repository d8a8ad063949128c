/**
 * The read cache across instances on PostgreSQL (issue 21, point 2), through the exported API: two
 * postgresStorage stores (two pools, as two servers would open them) on one database, each behind
 * its own createMarketplace, served over HTTP by the Node binding. What a user relies on:
 *
 * - strict (the default): a write acknowledged by either instance is seen by the very next request
 *   to the other (a revoked token is 401, a changed listing is shown), while each cached read costs
 *   one statement, the version, and a token's recorded use empties no instance's cache;
 * - maxStalenessMs: a cached read costs no statement at all; a write is seen by the other instance
 *   within milliseconds when it notifies, and within maxStalenessMs whoever made it, how ever the
 *   notifications fared (a lost listening connection, a database that stops answering).
 *
 * Statements are counted per database by wrapping node-postgres' Client.prototype.query, the
 * driver both stores use.
 */
import assert from 'node:assert/strict';
import { after, describe } from 'node:test';
import pg from 'pg';
import { manualClock, memoryBlobs } from '../../adapters/memory/index.js';
import { postgresStorage, type PostgresStorage, type PostgresStorageOptions } from '../../adapters/postgres/index.js';
import { serve } from '../../bindings/node/index.js';
import { createMarketplace, type Marketplace } from '../../core/index.js';
import { inSchema } from '../fixtures/postgres-database.js';
import { startPostgres, type PostgresCluster } from '../fixtures/postgres.js';
import { needs } from '../fixtures/parts.js';
import { rawConnection } from '../fixtures/raw-http.js';

const { before, test } = needs('postgresql');

let cluster: PostgresCluster;
let migrated: string;
before(async () => {
  cluster = await startPostgres();
  migrated = await cluster.createDatabase();
  await (await postgresStorage({ url: migrated })).close();
});
after(() => cluster?.stop());

/** Statements sent to each database, by text (a named statement counts under its text). */
const sent = new Map<string, string[]>();
const versionQuery = 'SELECT sum(version)::int8 AS version, sum(callers)::int8 AS callers FROM marketkit_changes';
{
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown; connectionParameters?: { database?: string } };
  const query = prototype.query;
  prototype.query = function (this: { connectionParameters?: { database?: string } }, ...args: unknown[]) {
    const database = this.connectionParameters?.database ?? '';
    const first = args[0] as string | { text?: string };
    const text = typeof first === 'string' ? first : (first?.text ?? '');
    if (!sent.has(database)) sent.set(database, []);
    sent.get(database)!.push(text);
    return query.apply(this, args);
  };
}
/** What `fn` sent to `database`. */
async function statementsOf(database: string, fn: () => Promise<unknown>): Promise<string[]> {
  const log = sent.get(database) ?? [];
  sent.set(database, log);
  const from = log.length;
  await fn();
  return log.slice(from);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `count` GETs of `path` sent to `instance` in one write on one connection (pipelined): their statuses, in order. */
async function pipelined(instance: Instance, token: string, path: string, count: number): Promise<number[]> {
  const { host } = new URL(instance.url);
  const connection = rawConnection(instance.url);
  try {
    await connection.write(`GET /api/v1${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\n\r\n`.repeat(count));
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) statuses.push((await connection.answer()).status);
    return statuses;
  } finally {
    connection.end();
  }
}

interface Instance {
  url: string;
  marketplace: Marketplace;
  storage: PostgresStorage;
  clock: ReturnType<typeof manualClock>;
  /** What the marketplace reported to onError (a 500 or a 503). */
  errors: unknown[];
}

/** Two instances on one new database: two stores, two marketplaces, two HTTP servers. */
async function twoInstances(options: Partial<PostgresStorageOptions> = {}) {
  const url = await cluster.createDatabase({ template: migrated });
  const database = new URL(url).pathname.slice(1);
  const opened: { close(): Promise<void> }[] = [];
  const instance = async (): Promise<Instance> => {
    const storage = await postgresStorage({ url, poolSize: 4, ...options });
    opened.push(storage);
    const clock = manualClock(Date.parse('2026-03-01T12:00:00Z'));
    const errors: unknown[] = [];
    const marketplace = createMarketplace({ storage, blobs: memoryBlobs(), clock, onError: (error) => errors.push(error), rateLimits: { read: { limit: 100_000, windowSeconds: 60 }, write: { limit: 100_000, windowSeconds: 60 } } });
    const server = await serve(marketplace, { port: 0 });
    opened.unshift(server);
    return { url: server.url, marketplace, storage, clock, errors };
  };
  const [a, b] = [await instance(), await instance()];
  const account = await a.marketplace.admin.createAccount({ username: `seller-${crypto.randomUUID().slice(0, 8)}` });
  const issue = (name: string, scopes?: ('profile:read' | 'assets:read' | 'assets:write' | 'tokens:read' | 'tokens:revoke')[]) =>
    a.marketplace.admin.createToken({ accountId: account.id, name, ...(scopes ? { scopes } : {}) });
  const token = async (name = 'test') => (await issue(name)).token;
  return {
    a,
    b,
    url,
    database,
    account,
    token,
    issue,
    /** Closes both; `expectErrors` when the test stopped the database. */
    close: async (expectErrors = false) => {
      for (const thing of opened) await thing.close();
      if (!expectErrors) assert.deepEqual([...a.errors, ...b.errors], []);
    },
  };
}

async function call(instance: Instance, token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${instance.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
}

/** Requests to both instances until `stop()`, so that version questions are on the wire when writes are acknowledged. */
function background(instances: Instance[], token: string, path: string) {
  let running = true;
  let served = 0;
  const loops = instances.flatMap((instance) =>
    Array.from({ length: 3 }, async () => {
      while (running) {
        const { status } = await call(instance, token, 'GET', path);
        assert.equal(status, 200);
        served++;
      }
    }),
  );
  return async () => {
    running = false;
    await Promise.all(loops);
    return served;
  };
}

describe('strict (the default): the next request to every instance sees a write acknowledged by any', () => {
  test('a token revoked through one instance is 401 on the very next request to the other, under load', async () => {
    const { a, b, token, issue, close } = await twoInstances();
    try {
      const busy = await token('busy');
      const revoker = (await issue('revoker', ['tokens:revoke'])).token;
      const listing = await call(a, busy, 'POST', '/assets', { title: 'Castle Pack', slug: 'castle-pack' });
      const stop = background([a, b], busy, `/assets/${listing.body.id}`);
      try {
        for (let round = 0; round < 15; round++) {
          const [from, to] = round % 2 === 0 ? [a, b] : [b, a];
          const { token: victim, record } = await issue(`victim ${round}`);
          // Known to both instances: kept as a caller on each.
          for (let i = 0; i < 3; i++) for (const instance of [a, b]) assert.equal((await call(instance, victim, 'GET', '/me')).status, 200);
          assert.equal((await call(from, revoker, 'DELETE', `/tokens?id=${record.id}`)).status, 200);
          const next = await call(to, victim, 'GET', '/me');
          assert.equal(next.status, 401, `round ${round}: the next request to the other instance was ${next.status}`);
          assert.equal((await call(from, victim, 'GET', '/me')).status, 401);
        }
      } finally {
        assert.ok((await stop()) > 0);
      }
    } finally {
      await close();
    }
  });

  test('a listing changed through one instance is what the other shows at once, under load', async () => {
    const { a, b, token, close } = await twoInstances();
    try {
      const seller = await token();
      const id = (await call(a, seller, 'POST', '/assets', { title: 'Title 0', slug: 'castle-pack' })).body.id as string;
      const stop = background([a, b], seller, `/assets/${id}`);
      try {
        for (let round = 1; round <= 20; round++) {
          const [from, to] = round % 2 === 0 ? [a, b] : [b, a];
          assert.equal((await call(to, seller, 'GET', `/assets/${id}`)).body.title, `Title ${round - 1}`);
          assert.equal((await call(from, seller, 'PATCH', `/assets/${id}`, { title: `Title ${round}` })).status, 200);
          assert.equal((await call(to, seller, 'GET', `/assets/${id}`)).body.title, `Title ${round}`, `round ${round}`);
          const page = await call(to, seller, 'GET', '/assets?limit=5');
          assert.deepEqual((page.body.data as { title: string }[]).map((listing) => listing.title), [`Title ${round}`]);
        }
      } finally {
        await stop();
      }
    } finally {
      await close();
    }
  });

  test("a cached read costs one statement, the version, shared by the requests read in one turn; a token's recorded use empties no instance's cache", async () => {
    const { a, b, token, database, url, close } = await twoInstances();
    try {
      const seller = await token();
      const id = (await call(a, seller, 'POST', '/assets', { title: 'Castle Pack', slug: 'castle-pack' })).body.id as string;
      const first = await statementsOf(database, () => call(b, seller, 'GET', `/assets/${id}`));
      assert.ok(first.length >= 4, `the first read on b reads the token, the account and the listing: ${first.join(' | ')}`);
      for (let i = 0; i < 10; i++) {
        const again = await statementsOf(database, async () => assert.equal((await call(b, seller, 'GET', `/assets/${id}`)).body.title, 'Castle Pack'));
        assert.deepEqual(again, [versionQuery]);
      }
      // A minute later on a's clock: a records the token's use (an UPDATE of last_used_at)...
      a.clock.advance(61_000);
      const touched = await statementsOf(database, () => call(a, seller, 'GET', `/assets/${id}`));
      assert.ok(touched.some((text) => /^UPDATE tokens SET last_used_at/.test(text)), touched.join(' | '));
      const client = new pg.Client({ connectionString: inSchema(url) });
      await client.connect();
      try {
        const { rows } = await client.query('SELECT last_used_at FROM tokens WHERE name = $1', ['test']);
        assert.equal(rows[0]?.last_used_at, new Date(a.clock.now()).toISOString());
      } finally {
        await client.end();
      }
      // Requests read in one turn (pipelined on one connection) share one question.
      const together = await statementsOf(database, async () => assert.deepEqual(await pipelined(b, seller, `/assets/${id}`, 6), [200, 200, 200, 200, 200, 200]));
      assert.deepEqual(together, [versionQuery], 'six cached reads read in one turn ask the version once');
      // ...and b still answers from what it kept: one statement, the version.
      assert.deepEqual(await statementsOf(database, () => call(b, seller, 'GET', `/assets/${id}`)), [versionQuery]);
      // So does a, which kept the use it recorded rather than touching again.
      assert.deepEqual(await statementsOf(database, () => call(a, seller, 'GET', `/assets/${id}`)), [versionQuery]);
    } finally {
      await close();
    }
  });
});

describe('strict: callers kept across listing writes, refused at once when their token or account changes', () => {
  test("a listing written through either instance reads no client's token or account again; a revocation or suspension through the other instance is refused on the very next request", async () => {
    const { a, b, token, issue, account, database, close } = await twoInstances();
    try {
      const writer = await token('writer');
      const reader = await token('reader');
      const { token: victim, record } = await issue('victim');
      const revoker = (await issue('revoker', ['tokens:revoke'])).token;
      for (const instance of [a, b]) for (const known of [writer, reader, victim]) assert.equal((await call(instance, known, 'GET', '/me')).status, 200);
      const readsCaller = (text: string) => /\bFROM (tokens|accounts)\b/.test(text);
      for (let round = 0; round < 4; round++) {
        const [from, to] = round % 2 === 0 ? [a, b] : [b, a];
        assert.equal((await call(from, writer, 'POST', '/assets', { title: 'Castle Pack', slug: `castle-pack-${round}` })).status, 201);
        for (const instance of [from, to]) {
          const sentBy = await statementsOf(database, async () => assert.equal((await call(instance, reader, 'GET', '/assets?limit=5')).status, 200));
          assert.deepEqual(sentBy.filter(readsCaller), [], `round ${round}: after a listing write, the caller was read again: ${sentBy.join(' | ')}`);
        }
      }
      // Known to both instances, the victim is revoked through a: b refuses it on its very next request.
      assert.equal((await call(a, revoker, 'DELETE', `/tokens?id=${record.id}`)).status, 200);
      assert.equal((await call(b, victim, 'GET', '/me')).status, 401);
      assert.equal((await call(a, victim, 'GET', '/me')).status, 401);
      // After another listing write, the account suspended through b's admin: a's next request is 403.
      assert.equal((await call(a, writer, 'POST', '/assets', { title: 'Castle Pack', slug: 'castle-pack-last' })).status, 201);
      assert.equal((await call(a, reader, 'GET', '/me')).status, 200);
      await b.marketplace.admin.updateAccount(account.id, { is_suspended: true });
      assert.equal((await call(a, reader, 'GET', '/me')).status, 403);
      assert.equal((await call(b, reader, 'GET', '/me')).status, 403);
      await a.marketplace.admin.updateAccount(account.id, { is_suspended: false });
      assert.equal((await call(b, reader, 'GET', '/me')).status, 200, 'lifted through a, seen by b at once');
    } finally {
      await close();
    }
  });
});

describe('maxStalenessMs: no statement per request, and a bound on how old what is kept may be', () => {
  test('a cached read costs no statement; a write through one instance is seen by the other within milliseconds (its notification), also after the listening connection was cut', async () => {
    // A poll every minute: only the notification can explain a change seen sooner.
    const { a, b, token, database, url, close } = await twoInstances({ maxStalenessMs: 120_000 });
    try {
      const seller = await token();
      const id = (await call(a, seller, 'POST', '/assets', { title: 'Title 0', slug: 'castle-pack' })).body.id as string;
      // Once a's notifications of its writes above have come.
      await sleep(200);
      await call(b, seller, 'GET', `/assets/${id}`);
      for (let i = 0; i < 10; i++) {
        assert.deepEqual(await statementsOf(database, () => call(b, seller, 'GET', `/assets/${id}`)), []);
      }
      const waits: number[] = [];
      const changeAndWait = async (round: number) => {
        const [from, to] = round % 2 === 0 ? [a, b] : [b, a];
        assert.equal((await call(from, seller, 'PATCH', `/assets/${id}`, { title: `Title ${round}` })).status, 200);
        const start = performance.now();
        while ((await call(to, seller, 'GET', `/assets/${id}`)).body.title !== `Title ${round}`) {
          assert.ok(performance.now() - start < 2_000, `round ${round}: not seen within 2 s`);
          await sleep(1);
        }
        waits.push(performance.now() - start);
      };
      for (let round = 1; round <= 5; round++) await changeAndWait(round);

      // The listening connections are cut (a restart, a proxy): each instance's version moves at once...
      const before = [a.storage.changeVersion!(), b.storage.changeVersion!()];
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        const { rows } = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'");
        assert.equal(rows.length, 2, 'each instance listens on one connection');
      } finally {
        await admin.end();
      }
      const start = performance.now();
      while (a.storage.changeVersion!() === before[0] || b.storage.changeVersion!() === before[1]) {
        assert.ok(performance.now() - start < 1_000, 'a lost listening connection moves the version');
        await sleep(1);
      }
      // ...and each listens again (after 100 ms): changes are seen within milliseconds again.
      await sleep(500);
      for (let round = 6; round <= 9; round++) await changeAndWait(round);
      console.log(`# seen through the other instance after ${waits.map((ms) => ms.toFixed(1)).join(', ')} ms (the last four after a reconnect)`);
    } finally {
      await close();
    }
  });

  test('a write that sends no notification is seen by every instance within maxStalenessMs', async () => {
    const maxStalenessMs = 400;
    const { a, b, token, url, close } = await twoInstances({ maxStalenessMs });
    // A writer that notifies nobody: a strict store, as a `marketkit token revoke` would be.
    const quiet = await postgresStorage({ url, poolSize: 1 });
    try {
      const seller = await token();
      const victim = await token('victim');
      const id = (await call(a, seller, 'POST', '/assets', { title: 'Castle Pack', slug: 'castle-pack' })).body.id as string;
      for (let round = 0; round < 3; round++) {
        for (const instance of [a, b]) for (let i = 0; i < 3; i++) assert.equal((await call(instance, seller, 'GET', `/assets/${id}`)).status, 200);
        assert.equal((await call(b, victim, 'GET', `/assets/${id}`)).status, 200);
        const title = `Quietly ${round}`;
        const listing = await quiet.getAsset(id);
        assert.equal((await quiet.updateAsset(id, listing!.revision, { title, updated_at: new Date().toISOString() })).outcome, 'updated');
        const written = performance.now();
        const seen: boolean[] = [];
        while (performance.now() - written < maxStalenessMs) {
          seen.push((await call(b, seller, 'GET', `/assets/${id}`)).body.title === title);
          await sleep(10);
        }
        // From maxStalenessMs after the write on, every request to every instance shows it.
        for (const instance of [a, b]) assert.equal((await call(instance, seller, 'GET', `/assets/${id}`)).body.title, title);
        const first = seen.indexOf(true);
        assert.ok(first === -1 || seen.slice(first).every(Boolean), `once seen, always seen: ${seen.join(' ')}`);
        console.log(`# round ${round}: b showed the quiet write after ${first === -1 ? `more than ${seen.length}` : first} of ${seen.length} requests 10 ms apart`);
      }
      const [victimToken] = (await quiet.listTokens((await call(a, seller, 'GET', '/me')).body.id as string)).filter((t) => t.name === 'victim');
      assert.ok(await quiet.revokeToken(victimToken!.account_id, victimToken!.id, new Date().toISOString()));
      await sleep(maxStalenessMs);
      for (const instance of [a, b]) assert.equal((await call(instance, victim, 'GET', `/assets/${id}`)).status, 401);
    } finally {
      await quiet.close();
      await close();
    }
  });

  test('a database that stops answering is not hidden by the cache: past maxStalenessMs every request goes to it (503)', async () => {
    const maxStalenessMs = 300;
    const { a, b, token, close } = await twoInstances({ maxStalenessMs });
    try {
      const seller = await token();
      const id = (await call(a, seller, 'POST', '/assets', { title: 'Castle Pack', slug: 'castle-pack' })).body.id as string;
      for (let i = 0; i < 3; i++) assert.equal((await call(b, seller, 'GET', `/assets/${id}`)).status, 200);
      await cluster.pause();
      try {
        await sleep(maxStalenessMs + 100);
        for (const instance of [a, b]) assert.equal((await call(instance, seller, 'GET', `/assets/${id}`)).status, 503);
      } finally {
        await cluster.resume();
      }
      const start = performance.now();
      while ((await call(b, seller, 'GET', `/assets/${id}`)).status !== 200) {
        assert.ok(performance.now() - start < 10_000, 'b answers again once the database is back');
        await sleep(50);
      }
      assert.ok([...a.errors, ...b.errors].every((error) => (error as { code?: string }).code === 'STORAGE_UNAVAILABLE'));
    } finally {
      await close(true);
    }
  });
});
