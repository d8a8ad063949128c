import type { StoragePort } from '../../core/ports/storage.js';
import { metBy } from '../sql-idempotency.js';
import type { PgDriver } from './driver.js';
import { statements, type QueryName } from './queries.js';

/** How often a claim reads again a key that changed between its two statements before it gives up. */
const claimAttempts = 10;

/**
 * Idempotency keys on PostgreSQL (core/ports/storage.ts), in `idempotency_keys` (migration 4).
 * They move no changeVersion in either mode: the table has no trigger that bumps
 * `marketkit_changes`, and these methods are not among the writes that tell other instances.
 * Each statement runs on the pool, retried on a serialization failure or deadlock like any other.
 */
export function idempotencyMethods(db: PgDriver, who: string): Pick<StoragePort, 'claimIdempotencyKey' | 'finishIdempotencyKey' | 'purgeIdempotencyKeys'> {
  const query = (name: QueryName, ...params: unknown[]) => db.query(statements[name], params);
  return {
    async claimIdempotencyKey(claim) {
      const { accountId, key, holder, nowMs } = claim;
      for (let attempt = 0; attempt < claimAttempts; attempt++) {
        const taken = await query('claimIdempotencyKey', accountId, key, claim.fingerprint, holder, nowMs + claim.leaseMs, nowMs + claim.ttlMs, nowMs);
        if (taken.rows[0]?.holder === holder) return { outcome: 'claimed' };
        // Not taken: the row that refused it says why, unless it was freed or replaced since.
        const met = metBy((await query('getIdempotencyKey', accountId, key)).rows[0], claim);
        if (met) return met;
      }
      throw new Error(`${who}: the idempotency key of account ${accountId} changed under ${claimAttempts} claims in a row; is something freeing and claiming it in a loop?`);
    },
    async finishIdempotencyKey(accountId, key, holder, answer) {
      if (answer) await query('keepIdempotentAnswer', answer.status, answer.body, accountId, key, holder);
      else await query('freeIdempotencyKey', accountId, key, holder);
    },
    async purgeIdempotencyKeys(nowMs, limit) {
      return (await query('purgeIdempotencyKeys', nowMs, limit)).rowCount;
    },
  };
}
