/**
 * What the SQL adapters share about idempotency keys (core/ports/storage.ts, claimIdempotencyKey):
 * how a claim reads the row stored under its key. Both keep one row per account and key with the
 * same columns (SQLite migration 6, PostgreSQL migration 4), so one function classifies it.
 */
import type { IdempotencyClaim, IdempotencyClaimResult } from '../core/ports/storage.js';

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
