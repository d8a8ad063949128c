import type { Migration } from './migration.js';

/**
 * Idempotency keys (core/ports/storage.ts, claimIdempotencyKey): one row per account and key,
 * whose primary key is what a claim is atomic on. A row is running while `answer_status` is null.
 * Times are epoch milliseconds, as the port gives them. No foreign key to accounts: a key is
 * purged on its own schedule, and nothing reads it with its account.
 */
export const idempotencyKeys: Migration = {
  version: 6,
  name: 'idempotency-keys',
  statements: [
    `CREATE TABLE idempotency_keys (
      account_id TEXT NOT NULL,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      holder TEXT NOT NULL,
      lease_until_ms INTEGER NOT NULL,
      expires_at_ms INTEGER NOT NULL,
      answer_status INTEGER,
      answer_body TEXT,
      PRIMARY KEY (account_id, key)
    )`,
    // The purge's look-up of expired rows.
    `CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at_ms)`,
  ],
};
