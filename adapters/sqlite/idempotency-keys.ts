import type { StoragePort } from '../../core/ports/storage.js';
import { metBy } from '../sql-idempotency.js';
import type { SqliteDriver, SqliteStatement } from './drivers/driver.js';
import type { QueryName } from './queries.js';

/**
 * Idempotency keys on SQLite (core/ports/storage.ts), in `idempotency_keys` (migration 6).
 *
 * These writes move this adapter's changeVersion, though the port does not ask them to: it counts
 * every row this connection changes (total_changes) and every commit of another connection
 * (data_version), whatever the table. Harmless, and cheap: a claim writes only when it takes the
 * key, and a run that takes one writes a listing or account right after, which moves it anyway;
 * a replay, or a key in use, writes nothing.
 */
export function idempotencyMethods(db: SqliteDriver, q: (name: QueryName) => SqliteStatement): Pick<StoragePort, 'claimIdempotencyKey' | 'finishIdempotencyKey' | 'purgeIdempotencyKeys'> {
  return {
    async claimIdempotencyKey(claim) {
      const { accountId, key, nowMs } = claim;
      // BEGIN IMMEDIATE: the write lock before the read, so that no other connection, in this
      // process or another, takes the key between this one's read and its write.
      return db.transaction(() => {
        const met = metBy(q('getIdempotencyKey').get(accountId, key), claim);
        if (met) return met;
        q('claimIdempotencyKey').run(accountId, key, claim.fingerprint, claim.holder, nowMs + claim.leaseMs, nowMs + claim.ttlMs);
        return { outcome: 'claimed' } as const;
      });
    },
    async finishIdempotencyKey(accountId, key, holder, answer) {
      if (answer) q('keepIdempotentAnswer').run(answer.status, answer.body, accountId, key, holder);
      else q('freeIdempotencyKey').run(accountId, key, holder);
    },
    async purgeIdempotencyKeys(nowMs, limit) {
      return q('purgeIdempotencyKeys').run(nowMs, limit).changes;
    },
  };
}
