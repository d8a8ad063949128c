import assert from 'node:assert/strict';
import type { IdempotencyClaim, IdempotencyClaimResult, KeptAnswer, StoragePort } from '../../../core/ports/storage.js';
import { countOf } from '../suite.js';
import { owner, type StorageTests, type WithPeer } from './fixtures.js';

// Every time here is chosen by the test, never read from a clock. A real epoch in milliseconds is
// past 2^31: a column too narrow for it fails the first claim.
const t0 = Date.UTC(2026, 0, 15, 12, 0, 0);
const leaseMs = 30_000;
const ttlMs = 24 * 60 * 60_000;
const request = 'POST /api/v1/assets {"title":"Castle Pack"}';
const another = 'POST /api/v1/assets {"title":"Other Pack"}';

/** A claim of `key` for the account, by a fresh holder, at t0 unless told otherwise. */
function claimOf(accountId: string, key: string, overrides: Partial<IdempotencyClaim> = {}): IdempotencyClaim {
  return { accountId, key, fingerprint: request, holder: crypto.randomUUID(), nowMs: t0, leaseMs, ttlMs, ...overrides };
}

/** A kept answer with text that a careless column would change: non-ASCII, a line separator, 70 kB. */
const created: KeptAnswer = {
  status: 200,
  body: JSON.stringify({ id: crypto.randomUUID(), title: 'Schloß ✓ \u2028 "quoted"\n', description: 'x'.repeat(70_000) }),
};
const refused: KeptAnswer = { status: 409, body: '{"error":"The slug is taken.","code":"CONFLICT"}' };

const running = (leaseUntilMs: number): IdempotencyClaimResult => ({ outcome: 'running', leaseUntilMs });
const done = (answer: KeptAnswer): IdempotencyClaimResult => ({ outcome: 'done', answer });

/** Idempotency keys: one run per key and request, its answer kept, leases, expiry, purge. */
export function idempotencyTests<S extends StoragePort>(withPeer: WithPeer<S>): StorageTests<S> {
  return {
    'a free key is claimed, and the same request while it runs is told until when': async (storage) => {
      const { id } = await owner(storage);
      // The longest key a client may send.
      const key = `k-${'7'.repeat(253)}`;
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, key)), { outcome: 'claimed' });
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, key, { nowMs: t0 + 1_000 })), running(t0 + leaseMs));
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, key, { nowMs: t0 + leaseMs - 1 })), running(t0 + leaseMs));
    },
    'a finished run keeps its answer for every later claim of the same request': async (storage) => {
      const { id } = await owner(storage);
      const first = claimOf(id, 'create-1');
      assert.equal((await storage.claimIdempotencyKey(first)).outcome, 'claimed');
      await storage.finishIdempotencyKey(id, 'create-1', first.holder, created);
      for (const nowMs of [t0 + 1, t0 + leaseMs + 1, t0 + ttlMs - 1]) {
        assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'create-1', { nowMs })), done(created), `at t0 + ${nowMs - t0} ms`);
      }
      // A kept refusal is an answer like any other.
      const second = claimOf(id, 'create-2');
      assert.equal((await storage.claimIdempotencyKey(second)).outcome, 'claimed');
      await storage.finishIdempotencyKey(id, 'create-2', second.holder, refused);
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'create-2', { nowMs: t0 + 5 })), done(refused));
    },
    'another request with the key is a mismatch, while the first runs, after its lease, and once it is done': async (storage) => {
      const { id } = await owner(storage);
      const first = claimOf(id, 'k');
      assert.equal((await storage.claimIdempotencyKey(first)).outcome, 'claimed');
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'k', { fingerprint: another, nowMs: t0 + 1 })), { outcome: 'mismatch' });
      // A lease that ran out frees the key for the same request only.
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'k', { fingerprint: another, nowMs: t0 + leaseMs })), { outcome: 'mismatch' });
      await storage.finishIdempotencyKey(id, 'k', first.holder, created);
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'k', { fingerprint: another, nowMs: t0 + 2 })), { outcome: 'mismatch' });
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'k', { nowMs: t0 + 3 })), done(created));
    },
    'finishing without an answer frees the key, for the same request or another': async (storage) => {
      const { id } = await owner(storage);
      const first = claimOf(id, 'k');
      assert.equal((await storage.claimIdempotencyKey(first)).outcome, 'claimed');
      await storage.finishIdempotencyKey(id, 'k', first.holder, null);
      const retry = claimOf(id, 'k', { nowMs: t0 + 1 });
      assert.deepStrictEqual(await storage.claimIdempotencyKey(retry), { outcome: 'claimed' });
      await storage.finishIdempotencyKey(id, 'k', retry.holder, null);
      const other = claimOf(id, 'k', { fingerprint: another, nowMs: t0 + 2 });
      assert.deepStrictEqual(await storage.claimIdempotencyKey(other), { outcome: 'claimed' });
      await storage.finishIdempotencyKey(id, 'k', other.holder, created);
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'k', { fingerprint: another, nowMs: t0 + 3 })), done(created));
    },
    'a finish by a holder that does not hold the key changes nothing': async (storage) => {
      const { id } = await owner(storage);
      const first = claimOf(id, 'k');
      assert.equal((await storage.claimIdempotencyKey(first)).outcome, 'claimed');
      await storage.finishIdempotencyKey(id, 'k', crypto.randomUUID(), created);
      await storage.finishIdempotencyKey(id, 'k', crypto.randomUUID(), null);
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'k', { nowMs: t0 + 1 })), running(t0 + leaseMs));
      // Nor one for a key that was never claimed: nothing appears.
      await storage.finishIdempotencyKey(id, 'never-claimed', first.holder, created);
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'never-claimed', { fingerprint: another, nowMs: t0 + 1 })), { outcome: 'claimed' });
      await storage.finishIdempotencyKey(id, 'k', first.holder, refused);
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'k', { nowMs: t0 + 2 })), done(refused));
    },
    "a run whose lease ran out is taken over by the same request, and the old run's finish then changes nothing": async (storage) => {
      const { id } = await owner(storage);
      const stalled = claimOf(id, 'k');
      assert.equal((await storage.claimIdempotencyKey(stalled)).outcome, 'claimed');
      const retry = claimOf(id, 'k', { nowMs: t0 + leaseMs });
      assert.deepStrictEqual(await storage.claimIdempotencyKey(retry), { outcome: 'claimed' });
      // The new run's lease counts from its claim.
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'k', { nowMs: t0 + leaseMs + 1 })), running(t0 + 2 * leaseMs));
      await storage.finishIdempotencyKey(id, 'k', stalled.holder, refused);
      await storage.finishIdempotencyKey(id, 'k', stalled.holder, null);
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'k', { nowMs: t0 + leaseMs + 2 })), running(t0 + 2 * leaseMs));
      await storage.finishIdempotencyKey(id, 'k', retry.holder, created);
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'k', { nowMs: t0 + leaseMs + 3 })), done(created));
    },
    'an expired key is free for any request, done or still running': async (storage) => {
      const { id } = await owner(storage);
      const finished = claimOf(id, 'done');
      assert.equal((await storage.claimIdempotencyKey(finished)).outcome, 'claimed');
      await storage.finishIdempotencyKey(id, 'done', finished.holder, created);
      assert.equal((await storage.claimIdempotencyKey(claimOf(id, 'running'))).outcome, 'claimed');
      for (const key of ['done', 'running']) {
        assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, key, { fingerprint: another, nowMs: t0 + ttlMs - 1 })), { outcome: 'mismatch' }, key);
        assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, key, { fingerprint: another, nowMs: t0 + ttlMs })), { outcome: 'claimed' }, key);
      }
      // The new record is the new request's, from its own claim on.
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'done', { nowMs: t0 + ttlMs + 1 })), { outcome: 'mismatch' });
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'done', { fingerprint: another, nowMs: t0 + ttlMs + 1 })), running(t0 + ttlMs + leaseMs));
    },
    "keys are per account, and compared exactly: another account's same key, or the key in another case, is another key": async (storage) => {
      const [one, two] = [(await owner(storage)).id, (await owner(storage)).id];
      const mine = claimOf(one, 'Order-1');
      assert.equal((await storage.claimIdempotencyKey(mine)).outcome, 'claimed');
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(two, 'Order-1', { fingerprint: another })), { outcome: 'claimed' });
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(one, 'order-1', { fingerprint: another })), { outcome: 'claimed' });
      await storage.finishIdempotencyKey(one, 'Order-1', mine.holder, created);
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(one, 'Order-1', { nowMs: t0 + 1 })), done(created));
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(two, 'Order-1', { fingerprint: another, nowMs: t0 + 1 })), running(t0 + leaseMs));
      // A holder finishes only its own account's key.
      await storage.finishIdempotencyKey(two, 'Order-1', mine.holder, null);
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(two, 'Order-1', { fingerprint: another, nowMs: t0 + 2 })), running(t0 + leaseMs));
    },
    'purge removes expired keys only, at most `limit` at a time, and says how many': async (storage) => {
      const { id } = await owner(storage);
      // Three expire (one done, two running), one does not.
      for (const [key, ttl] of [['a', 100], ['b', 200], ['c', 300], ['live', ttlMs]] as const) {
        const claim = claimOf(id, key, { ttlMs: ttl });
        assert.equal((await storage.claimIdempotencyKey(claim)).outcome, 'claimed');
        if (key === 'a') await storage.finishIdempotencyKey(id, key, claim.holder, created);
      }
      assert.equal(await storage.purgeIdempotencyKeys(t0 + 99, 10), 0);
      assert.equal(await storage.purgeIdempotencyKeys(t0 + 300, 2), 2);
      assert.equal(await storage.purgeIdempotencyKeys(t0 + 300, 2), 1);
      assert.equal(await storage.purgeIdempotencyKeys(t0 + 300, 10), 0);
      assert.deepStrictEqual(await storage.claimIdempotencyKey(claimOf(id, 'live', { fingerprint: another, nowMs: t0 + 300 })), { outcome: 'mismatch' });
      assert.equal(await storage.purgeIdempotencyKeys(t0 + ttlMs, 10), 1);
      assert.equal(await storage.purgeIdempotencyKeys(t0 + ttlMs, 10), 0);
    },
    'of 20 concurrent claims of one key exactly one is claimed, the others are told it runs': async (storage) => {
      const { id } = await owner(storage);
      await withPeer(storage, async (pick) => {
        const claims = Array.from({ length: 20 }, () => claimOf(id, 'race'));
        const { results, count } = await countOf(
          claims.map((claim, i) => pick(i).claimIdempotencyKey(claim)),
          (r) => r.outcome === 'claimed',
        );
        assert.equal(count, 1);
        assert.deepStrictEqual(results.filter((r) => r.outcome !== 'claimed'), Array.from({ length: 19 }, () => running(t0 + leaseMs)));
        // The winner's answer is what both handles then read.
        const winner = claims[results.findIndex((r) => r.outcome === 'claimed')]!;
        await pick(1).finishIdempotencyKey(id, 'race', winner.holder, created);
        for (const i of [0, 1]) assert.deepStrictEqual(await pick(i).claimIdempotencyKey(claimOf(id, 'race', { nowMs: t0 + 1 })), done(created));
      });
    },
    'of concurrent claims of a key whose lease ran out, or that expired, exactly one is claimed': async (storage) => {
      const { id } = await owner(storage);
      assert.equal((await storage.claimIdempotencyKey(claimOf(id, 'stalled'))).outcome, 'claimed');
      assert.equal((await storage.claimIdempotencyKey(claimOf(id, 'expired', { fingerprint: another }))).outcome, 'claimed');
      await withPeer(storage, async (pick) => {
        for (const [key, nowMs] of [['stalled', t0 + leaseMs], ['expired', t0 + ttlMs]] as const) {
          const { results, count } = await countOf(
            Array.from({ length: 10 }, (_, i) => pick(i).claimIdempotencyKey(claimOf(id, key, { nowMs }))),
            (r) => r.outcome === 'claimed',
          );
          assert.equal(count, 1, key);
          assert.deepStrictEqual(results.filter((r) => r.outcome !== 'claimed'), Array.from({ length: 9 }, () => running(nowMs + leaseMs)), key);
        }
      });
    },
  };
}
