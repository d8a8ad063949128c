import assert from 'node:assert/strict';
import type { LeasePort } from '../../../core/ports/storage.js';
import { countOf } from '../suite.js';

const t0 = Date.parse('2026-01-15T12:00:00.000Z');

/** Job leases (core/ports/leases.ts): over any LeasePort, a StoragePort's or one of its own. */
export function leaseTests<P extends LeasePort>(withPeer: (port: P, body: (pick: (i: number) => LeasePort) => Promise<void>) => Promise<void>): Record<string, (port: P) => Promise<void>> {
  return {
    'a free lease is taken; another holder is refused until it expires, then takes it': async (leases) => {
      assert.equal(await leases.tryLease('job', 'a', t0, 1000), true);
      assert.equal(await leases.tryLease('job', 'b', t0 + 999, 1000), false, 'held by a until t0 + 1000');
      assert.equal(await leases.tryLease('job', 'b', t0 + 1000, 1000), true, 'expired: b takes it');
      assert.equal(await leases.tryLease('job', 'a', t0 + 1500, 1000), false, 'now b holds it');
    },
    'the holder renews its own lease; names are independent': async (leases) => {
      assert.equal(await leases.tryLease('job', 'a', t0, 1000), true);
      assert.equal(await leases.tryLease('job', 'a', t0 + 500, 1000), true, 'renewed until t0 + 1500');
      assert.equal(await leases.tryLease('job', 'b', t0 + 1200, 1000), false);
      assert.equal(await leases.tryLease('other job', 'b', t0 + 1200, 1000), true);
    },
    'of concurrent takers of a free lease, exactly one holds it': async (leases) =>
      withPeer(leases, async (pick) => {
        const takers = Array.from({ length: 12 }, (_, i) => pick(i).tryLease('race', `holder-${i}`, t0, 60_000));
        const { count } = await countOf(takers, (taken) => taken);
        assert.equal(count, 1);
      }),
  };
}
