/**
 * Group commit of creates on PostgreSQL (adapters/sql/create-groups.ts): the creates that arrive
 * in one turn of the event loop go to the database as one statement, and each is answered as it
 * would have been alone. Rows written by one statement share its transaction id (`xmin`): that is
 * how these tests see which creates went together.
 */
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { postgresSession } from '../../adapters/postgres/dialect.js';
import { openPgDriver, PostgresUnavailable, type PgDriver, type PgResult } from '../../adapters/postgres/driver.js';
import { postgresStorage, type PostgresStorage } from '../../adapters/postgres/index.js';
import { groupLimit } from '../../adapters/sql/create-groups.js';
import { sqlStorageMethods } from '../../adapters/sql/storage.js';
import { accountRecord, assetRecord, endpointRecord, outboxEvent } from '../../conformance/ports/sample-records.js';
import type { AssetRecord, CreateAssetResult } from '../../core/ports/storage.js';
import { needs } from '../fixtures/parts.js';
import { queryRows } from '../fixtures/postgres-database.js';
import { as, startServer } from '../fixtures/server.js';
import { sharedCluster, stopStores } from '../fixtures/stores.js';

const { test } = needs('postgresql');
after(stopStores);

/** A new migrated database, a store on it, and a seller stored there. */
async function storeWithSeller(): Promise<{ url: string; storage: PostgresStorage; sellerId: string }> {
  const url = await (await sharedCluster()).createDatabase();
  const storage = await postgresStorage({ url, poolSize: 4 });
  const seller = accountRecord();
  await storage.insertAccount(seller);
  return { url, storage, sellerId: seller.id };
}

/** How many transactions wrote the listings of these ids. */
async function transactionsOf(url: string, ids: readonly string[]): Promise<number> {
  return (await queryRows(url, 'SELECT count(DISTINCT xmin::text)::int AS n FROM assets WHERE id = ANY($1)', [ids]))[0].n;
}

/**
 * The SQL core's storage port on PostgreSQL as postgresStorage builds it, on a driver that
 * records which of `ids` each statement writing listings carried, and does `afterRun` with each
 * such statement's answer (to lose it, say).
 */
async function recordedStorage(url: string, ids: () => readonly string[], afterRun: (carried: string[], answer: PgResult) => PgResult = (_, answer) => answer) {
  const driver = await openPgDriver({ url, schema: 'marketkit', poolSize: 4, statementTimeoutMs: 0, connectTimeoutMs: 5000, idleTimeoutMs: 10_000, retries: 5 }, 'test');
  const statements: string[][] = [];
  const recording: PgDriver = {
    ...driver,
    async query(statement, params = []) {
      const writes = typeof statement !== 'string' && statement.text.includes('INSERT INTO assets');
      const carried = writes ? ids().filter((id) => params.includes(id)) : [];
      if (writes) statements.push(carried);
      const answer = await driver.query(statement, params);
      return writes ? afterRun(carried, answer) : answer;
    },
  };
  return { storage: sqlStorageMethods(postgresSession(recording), 'test'), statements, close: () => driver.close() };
}

test(`postgres: 50 creates at once are written in groups of at most ${groupLimit}, each listing once with its event, queued to the endpoints that subscribe`, async () => {
  const { url, storage, sellerId } = await storeWithSeller();
  try {
    const subscribed = endpointRecord(sellerId, { event_types: ['asset.created'] });
    const everything = endpointRecord(sellerId, { event_types: ['*'] });
    const other = endpointRecord(sellerId, { event_types: ['asset.deleted'] });
    const disabled = endpointRecord(sellerId, { enabled: false, disabled_reason: 'manual', disabled_at: '2026-01-15T12:00:00.000Z' });
    for (const endpoint of [subscribed, everything, other, disabled]) await storage.insertWebhookEndpoint(endpoint, 10);
    const assets = Array.from({ length: 50 }, () => assetRecord(sellerId));
    const events = assets.map((asset, i) => outboxEvent(sellerId, asset.id, 'asset.created', i));

    const results = await Promise.all(assets.map((asset, i) => storage.createAsset(asset, [events[i]!])));

    assert.deepStrictEqual(results, assets.map((asset) => ({ outcome: 'created', asset })));
    assert.equal((await storage.listAssets({ ownerId: sellerId, limit: 1, offset: 0 })).total, 50);
    const stored = await queryRows(url, 'SELECT id, subject_id, sequence FROM webhook_events ORDER BY sequence');
    assert.deepStrictEqual(stored.map((row) => row.id).sort(), events.map((event) => event.id).sort());
    assert.deepStrictEqual(stored.map((row) => row.subject_id).sort(), assets.map((asset) => asset.id).sort());
    const deliveries = await queryRows(url, 'SELECT event_id, endpoint_id, event_sequence, status, next_attempt_ms FROM webhook_deliveries');
    assert.equal(deliveries.length, 100);
    for (const event of events) {
      const sequence = stored.find((row) => row.id === event.id)!.sequence;
      const queued = deliveries.filter((row) => row.event_id === event.id);
      assert.deepStrictEqual(queued.map((row) => row.endpoint_id).sort(), [subscribed.id, everything.id].sort());
      for (const row of queued) assert.deepStrictEqual([row.event_sequence, row.status, Number(row.next_attempt_ms)], [sequence, 'pending', Date.parse(event.created_at)]);
    }
    // The 50 calls were made in one turn: groups of groupLimit and the rest, one transaction each.
    assert.equal(await transactionsOf(url, assets.map((asset) => asset.id)), Math.ceil(50 / groupLimit));
  } finally {
    await storage.close();
  }
});

test('postgres: creates of one group with one slug: the first is created, the others and one whose slug was taken before are slug_taken, with no event', async () => {
  const { url, storage, sellerId } = await storeWithSeller();
  try {
    await storage.createAsset(assetRecord(sellerId, { slug: 'taken-before' }));
    const slugs: Record<number, string> = { 2: 'twin', 5: 'twin', 9: 'twin', 11: 'taken-before' };
    const assets = Array.from({ length: groupLimit }, (_, i) => assetRecord(sellerId, slugs[i] ? { slug: slugs[i] } : {}));
    const events = assets.map((asset, i) => outboxEvent(sellerId, asset.id, 'asset.created', i));

    const results = await Promise.all(assets.map((asset, i) => storage.createAsset(asset, [events[i]!])));

    const taken = [5, 9, 11];
    assert.deepStrictEqual(results, assets.map((asset, i) => (taken.includes(i) ? { outcome: 'slug_taken' } : { outcome: 'created', asset })));
    assert.deepStrictEqual(await queryRows(url, "SELECT id FROM assets WHERE slug = 'twin'"), [{ id: assets[2]!.id }]);
    assert.equal((await storage.listAssets({ ownerId: sellerId, limit: 1, offset: 0 })).total, 1 + groupLimit - taken.length);
    const written = (await queryRows(url, 'SELECT subject_id FROM webhook_events')).map((row) => row.subject_id);
    assert.deepStrictEqual(written.sort(), assets.filter((_, i) => !taken.includes(i)).map((asset) => asset.id).sort());
    assert.equal(await transactionsOf(url, assets.map((asset) => asset.id)), 1);
  } finally {
    await storage.close();
  }
});

test('postgres: POST /assets at once with one slug repeated: one 201, the others 409 CONFLICT, the totals counting each listing once', async () => {
  const { url, storage } = await storeWithSeller();
  const server = await startServer({ storage });
  try {
    const seller = as(server, server.seller.token);
    const bodies = Array.from({ length: 24 }, (_, i) => ({ title: `Pack ${i}`, slug: i % 2 === 0 ? 'one-slug' : `own-slug-${i}` }));

    const answers = await Promise.all(bodies.map((body) => seller.post('/assets', body)));

    const shared = answers.filter((_, i) => i % 2 === 0);
    assert.equal(shared.filter((answer) => answer.status === 201).length, 1);
    for (const answer of shared.filter((answer) => answer.status !== 201)) {
      assert.equal(answer.status, 409);
      assert.equal(answer.body.code, 'CONFLICT');
    }
    assert.deepStrictEqual(answers.filter((_, i) => i % 2 === 1).map((answer) => answer.status), Array(12).fill(201));
    assert.equal((await seller.get('/assets?limit=1')).body.pagination.total, 13);
    const counts = (await seller.get('/assets/counts')).body;
    assert.deepStrictEqual([counts.total, counts.by_status.draft], [13, 13]);
    const ids = answers.filter((answer) => answer.status === 201).map((answer) => answer.body.id as string);
    // Requests that reached the store in one turn shared a statement (which ones is up to the network).
    assert.ok((await transactionsOf(url, ids)) < ids.length, 'no two creates shared a statement');
  } finally {
    await server.close();
    await storage.close();
  }
});

test('postgres: creates at once with two events each share a statement, each writing its events in order; one with another number of events goes alone', async () => {
  const { url, storage, sellerId } = await storeWithSeller();
  try {
    await storage.insertWebhookEndpoint(endpointRecord(sellerId), 10);
    const assets = Array.from({ length: 7 }, () => assetRecord(sellerId));
    const events = assets.map((asset, i) => [outboxEvent(sellerId, asset.id, 'asset.created', i), ...(i === 3 ? [] : [outboxEvent(sellerId, asset.id, 'asset.submitted', i)])]);

    const results = await Promise.all(assets.map((asset, i) => storage.createAsset(asset, events[i])));

    assert.deepStrictEqual(results, assets.map((asset) => ({ outcome: 'created', asset })));
    const stored = await queryRows(url, 'SELECT e.id, e.sequence, count(d.id)::int AS deliveries FROM webhook_events e LEFT JOIN webhook_deliveries d ON d.event_id = e.id GROUP BY e.id, e.sequence');
    const sequenceOf = (id: string) => Number(stored.find((row) => row.id === id)!.sequence);
    assert.equal(stored.length, 13);
    assert.ok(stored.every((row) => row.deliveries === 1));
    for (const [first, second] of events.filter((pair) => pair.length === 2)) assert.ok(sequenceOf(first!.id) < sequenceOf(second!.id), 'written in the order given');
    assert.equal(await transactionsOf(url, assets.filter((_, i) => i !== 3).map((asset) => asset.id)), 1);
    assert.equal(await transactionsOf(url, assets.map((asset) => asset.id)), 2);
  } finally {
    await storage.close();
  }
});

test("postgres: a group whose statement fails (two members' foreign keys) runs each member again alone: those two get their error, the others are created", async () => {
  const { url, storage, sellerId } = await storeWithSeller();
  let assets: AssetRecord[] = [];
  const recorded = await recordedStorage(url, () => assets.map((asset) => asset.id));
  try {
    assets = Array.from({ length: 10 }, (_, i) => assetRecord(i === 7 ? crypto.randomUUID() : sellerId, i === 4 ? { category_id: 'no-such-category' } : {}));

    const results = await Promise.allSettled(assets.map((asset) => recorded.storage.createAsset(asset, [outboxEvent(asset.owner_id, asset.id, 'asset.created')])));

    for (const [i, result] of results.entries()) {
      if (i === 4 || i === 7) assert.equal(result.status === 'rejected' && (result.reason as { code?: string }).code, '23503', `member ${i}`);
      else assert.deepStrictEqual(result, { status: 'fulfilled', value: { outcome: 'created', asset: assets[i]! } satisfies CreateAssetResult });
    }
    // The group's one statement carried all ten, then each went alone.
    assert.deepStrictEqual(recorded.statements[0]!.sort(), assets.map((asset) => asset.id).sort());
    assert.deepStrictEqual(recorded.statements.slice(1).map((carried) => carried.length), Array(10).fill(1));
    assert.equal((await storage.listAssets({ ownerId: sellerId, limit: 1, offset: 0 })).total, 8);
    assert.equal((await queryRows(url, 'SELECT count(*)::int AS n FROM webhook_events'))[0].n, 8);
  } finally {
    await recorded.close();
    await storage.close();
  }
});

test("postgres: a group's answer lost after it committed: each member, run again alone, finds its own listing and is answered created", async () => {
  const { url, storage, sellerId } = await storeWithSeller();
  let assets: AssetRecord[] = [];
  let lost = 0;
  const recorded = await recordedStorage(
    url,
    () => assets.map((asset) => asset.id),
    (carried, answer) => {
      if (carried.length < 2) return answer;
      lost++;
      throw new PostgresUnavailable('test', 'the test database', new Error('Connection terminated unexpectedly'));
    },
  );
  try {
    assets = Array.from({ length: 5 }, () => assetRecord(sellerId));

    const results = await Promise.all(assets.map((asset) => recorded.storage.createAsset(asset, [outboxEvent(sellerId, asset.id, 'asset.created')])));

    assert.equal(lost, 1);
    assert.deepStrictEqual(results, assets.map((asset) => ({ outcome: 'created', asset })));
    assert.equal((await storage.listAssets({ ownerId: sellerId, limit: 1, offset: 0 })).total, 5);
    assert.equal((await queryRows(url, 'SELECT count(*)::int AS n FROM webhook_events'))[0].n, 5);
  } finally {
    await recorded.close();
    await storage.close();
  }
});

test('postgres: creates that arrive while a group statement is out wait for it, and go together in the next', async () => {
  const { url, storage, sellerId } = await storeWithSeller();
  try {
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const first = Array.from({ length: 3 }, () => assetRecord(sellerId));
    const later = Array.from({ length: 3 }, () => assetRecord(sellerId));
    const creates: Promise<CreateAssetResult>[] = first.map((asset) => storage.createAsset(asset, [outboxEvent(sellerId, asset.id, 'asset.created')]));
    // Three more, one a turn, while the first group's statement is out (its round trip takes longer than three turns).
    for (const asset of later) {
      await nextTurn();
      creates.push(storage.createAsset(asset, [outboxEvent(sellerId, asset.id, 'asset.created')]));
    }
    assert.deepEqual((await Promise.all(creates)).map((result) => result.outcome), Array(6).fill('created'));
    assert.equal(await transactionsOf(url, first.map((asset) => asset.id)), 1, 'the first three went together');
    assert.equal(await transactionsOf(url, later.map((asset) => asset.id)), 1, 'the three that came one a turn meanwhile went together, not alone');
  } finally {
    await storage.close();
  }
});
