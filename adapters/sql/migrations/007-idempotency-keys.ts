import type { Migration } from './migration.js';

/**
 * Idempotency keys (core/ports/idempotency.ts, claimIdempotencyKey): one row per account and key,
 * whose primary key is what a claim's `INSERT ... ON CONFLICT` is atomic on. A row is running
 * while `answer_status` is null. Times are epoch milliseconds, as the port gives them. No foreign
 * key to accounts: a key is purged on its own schedule, and nothing reads it with its account.
 *
 * On PostgreSQL a logged table (not UNLOGGED): a kept answer must survive a crash of the server, or
 * a retry after it would run its write a second time. No trigger bumps `marketkit_changes`
 * (migration 6): no kept read shows a key, and a bump per claim would empty every instance's read
 * cache at every write request.
 */
export const idempotencyKeys: Migration = {
  version: 7,
  name: 'idempotency-keys',
  sqlite: [
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
  postgres: [
    `CREATE TABLE idempotency_keys (
      account_id TEXT COLLATE "C" NOT NULL,
      key TEXT COLLATE "C" NOT NULL,
      fingerprint TEXT COLLATE "C" NOT NULL,
      holder TEXT COLLATE "C" NOT NULL,
      lease_until_ms BIGINT NOT NULL,
      expires_at_ms BIGINT NOT NULL,
      answer_status INTEGER,
      answer_body TEXT,
      PRIMARY KEY (account_id, key)
    )`,
    // The purge's look-up of expired rows.
    `CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at_ms)`,
  ],
};
