import type { Migration } from './migration.js';

/**
 * Webhooks (docs/webhooks.md): the outbox of events, the sellers' endpoints and the deliveries of
 * events to endpoints. An event's `sequence` is never given twice, not even after the newest
 * events were purged (SQLite: AUTOINCREMENT; PostgreSQL: an identity column); of two events about
 * one listing, the later change's is larger, because the change locks the listing's row before its
 * event takes a number. A delivery's lease (`lease_holder`, `lease_until_ms`) is who sends it until
 * when; `next_attempt_ms` is null once it is finished, so the claim's index holds what is due
 * first. Times a worker compares are epoch milliseconds; the rest is ISO 8601 text as the core
 * writes it. Deleting an endpoint deletes its deliveries, and purging an event deletes its
 * deliveries (foreign keys, ON DELETE CASCADE).
 *
 * On PostgreSQL `event_types` is `jsonb`, for the `?` operator the fan-out filters with; an event's
 * `data` is text, kept byte for byte; a delivery's `attempts` is `json`. Logged tables: an event
 * must survive a crash of the server, or its change would have committed without it. No trigger
 * bumps `marketkit_changes` (migration 6): no kept read shows these rows, and a worker's claims and
 * attempts would otherwise empty every instance's read cache.
 */
export const webhooks: Migration = {
  version: 8,
  name: 'webhooks',
  sqlite: [
    `CREATE TABLE webhook_endpoints (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      url TEXT NOT NULL,
      description TEXT,
      event_types TEXT NOT NULL,
      enabled INTEGER NOT NULL,
      disabled_reason TEXT,
      disabled_at TEXT,
      secret TEXT NOT NULL,
      previous_secret TEXT,
      previous_secret_expires_at TEXT,
      failing_since TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    )`,
    // An account's endpoints, newest first; also the fan-out's look-up when an event is written.
    `CREATE INDEX webhook_endpoints_by_account ON webhook_endpoints (account_id, created_at DESC, id DESC)`,
    `CREATE TABLE webhook_events (
      sequence INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL,
      account_id TEXT NOT NULL,
      subject_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      data TEXT NOT NULL
    )`,
    // The purge's look-up of old events.
    `CREATE INDEX webhook_events_by_time ON webhook_events (created_at)`,
    `CREATE TABLE webhook_deliveries (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id TEXT NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
      event_type TEXT NOT NULL,
      event_sequence INTEGER NOT NULL,
      status TEXT NOT NULL,
      attempts TEXT NOT NULL,
      next_attempt_ms INTEGER,
      redelivery_of TEXT,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      lease_holder TEXT,
      lease_until_ms INTEGER
    )`,
    // The claim: due first, then by event.
    `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_ms, event_sequence)`,
    `CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, event_sequence DESC, id DESC)`,
    `CREATE INDEX webhook_deliveries_by_account ON webhook_deliveries (account_id, created_at DESC, event_sequence DESC, id DESC)`,
    // The purge's check that an event has nothing queued, and the cascade from events.
    `CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id, status)`,
  ],
  postgres: [
    `CREATE TABLE webhook_endpoints (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      url TEXT NOT NULL,
      description TEXT,
      event_types JSONB NOT NULL,
      enabled BOOLEAN NOT NULL,
      disabled_reason TEXT,
      disabled_at TEXT COLLATE "C",
      secret TEXT NOT NULL,
      previous_secret TEXT,
      previous_secret_expires_at TEXT COLLATE "C",
      failing_since TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    )`,
    // An account's endpoints, newest first; also the fan-out's look-up when an event is written.
    `CREATE INDEX webhook_endpoints_by_account ON webhook_endpoints (account_id, created_at DESC, id DESC)`,
    `CREATE TABLE webhook_events (
      sequence BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      id TEXT COLLATE "C" NOT NULL UNIQUE,
      type TEXT COLLATE "C" NOT NULL,
      account_id TEXT COLLATE "C" NOT NULL,
      subject_id TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      data TEXT NOT NULL
    )`,
    `CREATE INDEX webhook_events_by_time ON webhook_events (created_at)`,
    `CREATE TABLE webhook_deliveries (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL,
      endpoint_id TEXT COLLATE "C" NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id TEXT COLLATE "C" NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
      event_type TEXT COLLATE "C" NOT NULL,
      event_sequence BIGINT NOT NULL,
      status TEXT COLLATE "C" NOT NULL,
      attempts JSON NOT NULL,
      next_attempt_ms BIGINT,
      redelivery_of TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL,
      lease_holder TEXT COLLATE "C",
      lease_until_ms BIGINT
    )`,
    // The claim: what is due first, then by event; finished deliveries (next_attempt_ms null) are not in it.
    `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_ms, event_sequence) WHERE next_attempt_ms IS NOT NULL`,
    `CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, event_sequence DESC, id DESC)`,
    `CREATE INDEX webhook_deliveries_by_account ON webhook_deliveries (account_id, created_at DESC, event_sequence DESC, id DESC)`,
    `CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id, status)`,
  ],
};
