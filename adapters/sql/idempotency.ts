import type { IdempotencyClaim, IdempotencyClaimResult, IdempotencyPort } from '../../core/ports/storage.js';
import type { SqlDatabase } from './session.js';

/** The columns a claim reads (PostgreSQL answers BIGINT as text, hence the Number() below). */
export const keyColumns = 'fingerprint, holder, lease_until_ms, expires_at_ms, answer_status, answer_body';

/**
 * What `claim` meets in the row of its key: null when the key is the claim's to take (no row, an
 * expired one, or a run of the same request whose lease ran out), else the answer that claim gets.
 * The memory adapter's rules (adapters/memory/storage-keys.ts), which the port suite holds.
 */
export function metBy(row: Record<string, unknown> | undefined, claim: IdempotencyClaim): Exclude<IdempotencyClaimResult, { outcome: 'claimed' }> | null {
  if (!row || Number(row.expires_at_ms) <= claim.nowMs) return null;
  if (row.fingerprint !== claim.fingerprint) return { outcome: 'mismatch' };
  if (row.answer_status !== null && row.answer_status !== undefined) return { outcome: 'done', answer: { status: Number(row.answer_status), body: String(row.answer_body ?? '') } };
  const leaseUntilMs = Number(row.lease_until_ms);
  return leaseUntilMs > claim.nowMs ? { outcome: 'running', leaseUntilMs } : null;
}

export const idempotencyStatements = {
  // Takes a key that is free, expired, or held by a run of the same request whose lease ran out, in
  // one statement: a concurrent claim waits for the row (PostgreSQL) or the write lock (SQLite),
  // then re-checks the WHERE on the row this one left, finds it false and returns no row.
  claimIdempotencyKey: `INSERT INTO idempotency_keys AS k (account_id, key, fingerprint, holder, lease_until_ms, expires_at_ms, answer_status, answer_body)
    VALUES (?, ?, ?, ?, ?, ?, NULL, NULL)
    ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, holder = excluded.holder,
      lease_until_ms = excluded.lease_until_ms, expires_at_ms = excluded.expires_at_ms, answer_status = NULL, answer_body = NULL
    WHERE k.expires_at_ms <= ? OR (k.fingerprint = excluded.fingerprint AND k.answer_status IS NULL AND k.lease_until_ms <= ?)
    RETURNING holder`,
  getIdempotencyKey: `SELECT ${keyColumns} FROM idempotency_keys WHERE account_id = ? AND key = ?`,
  // Only the holder of a run still running ends it: the WHERE is the whole check, in one statement.
  keepIdempotentAnswer: 'UPDATE idempotency_keys SET answer_status = ?, answer_body = ? WHERE account_id = ? AND key = ? AND holder = ? AND answer_status IS NULL',
  freeIdempotencyKey: 'DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND holder = ? AND answer_status IS NULL',
  // The expiry again in the outer WHERE: a row claimed afresh between the inner look-up and the
  // delete is re-checked on its new version and kept. (DELETE ... LIMIT is not in every SQLite build.)
  purgeIdempotencyKeys: `DELETE FROM idempotency_keys WHERE (account_id, key) IN (SELECT account_id, key FROM idempotency_keys WHERE expires_at_ms <= ? LIMIT ?)
    AND expires_at_ms <= ?`,
};

/** How often a claim reads again a key that changed between its two statements before it gives up. */
const claimAttempts = 10;

/**
 * Idempotency keys (core/ports/idempotency.ts) in `idempotency_keys` (migration 7). Each method is
 * one statement, outside any transaction of a change: a claim that is refused reads the row that
 * refused it to say why.
 */
export function idempotencyMethods(db: SqlDatabase, who: string): IdempotencyPort {
  const s = idempotencyStatements;
  return {
    async claimIdempotencyKey(claim) {
      const { accountId, key, holder, nowMs } = claim;
      for (let attempt = 0; attempt < claimAttempts; attempt++) {
        const [taken] = await db.all(s.claimIdempotencyKey, [accountId, key, claim.fingerprint, holder, nowMs + claim.leaseMs, nowMs + claim.ttlMs, nowMs, nowMs]);
        if (taken?.holder === holder) return { outcome: 'claimed' };
        // Not taken: the row that refused it says why, unless it was freed or replaced since.
        const met = metBy((await db.all(s.getIdempotencyKey, [accountId, key]))[0], claim);
        if (met) return met;
      }
      throw new Error(`${who}: the idempotency key of account ${accountId} changed under ${claimAttempts} claims in a row; is something freeing and claiming it in a loop?`);
    },
    async finishIdempotencyKey(accountId, key, holder, answer) {
      if (answer) await db.run(s.keepIdempotentAnswer, [answer.status, answer.body, accountId, key, holder]);
      else await db.run(s.freeIdempotencyKey, [accountId, key, holder]);
    },
    async purgeIdempotencyKeys(nowMs, limit) {
      return db.run(s.purgeIdempotencyKeys, [nowMs, limit, nowMs]);
    },
  };
}
