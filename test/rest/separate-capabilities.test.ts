/**
 * Job leases and idempotency keys in stores of their own (createMarketplace's `leases` and
 * `idempotency` options, core/ports/leases.ts and core/ports/idempotency.ts): the marketplace keeps
 * them there, not in `storage`, and behaves as with one store.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { memoryStorage } from '../../adapters/memory/index.js';
import { call, startServer, validAsset, type TestServer } from '../fixtures/server.js';

const records = memoryStorage();
const keys = memoryStorage();
const leases = memoryStorage();
let server: TestServer;
before(async () => (server = await startServer({ storage: records, idempotency: keys, leases })));
after(() => server.close());

test('a retried POST with an Idempotency-Key is answered from the idempotency store; the records store holds no key', async () => {
  const body = validAsset();
  const post = () => call(server, 'POST', '/assets', { token: server.seller.token, body, headers: { 'idempotency-key': 'separate-1' } });
  const first = await post();
  const second = await post();
  assert.equal(first.status, 201);
  assert.equal(second.status, 201);
  assert.equal(second.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(second.body, first.body);
  const claim = { accountId: server.seller.id, key: 'separate-1', fingerprint: 'another request', holder: 'probe', nowMs: Date.parse('2026-01-15T12:00:00.000Z'), leaseMs: 1000, ttlMs: 1000 };
  assert.equal((await keys.claimIdempotencyKey(claim)).outcome, 'mismatch', 'the key is kept in the idempotency store');
  assert.equal((await records.claimIdempotencyKey(claim)).outcome, 'claimed', 'and not in the records store');
});

test('the upload sweep and the release of scheduled listings take their leases from the lease store', async () => {
  const now = Date.parse('2026-01-15T12:00:00.000Z');
  assert.equal(await leases.tryLease('upload-sweep', 'another instance', now, 3_600_000), true);
  assert.equal(await leases.tryLease('release-due', 'another instance', now, 3_600_000), true);
  assert.equal((await server.marketplace.maintenance.sweepUploads()).ran, false, 'another instance holds the sweep in the lease store');
  assert.equal((await server.marketplace.maintenance.releaseDue()).ran, false, 'and the release');
  assert.equal(await records.tryLease('upload-sweep', 'a third instance', now, 1000), true, 'the records store holds no lease');
});
