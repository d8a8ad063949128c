/** The statements of webhooks (webhooks.ts, webhook-outbox.ts), and the row helpers both use. */
import type { WebhookDeliveryRecord } from '../../core/ports/storage.js';
import { recordReader } from './rows.js';
import type { SqlDatabase, SqlDialect, SqlSession } from './session.js';
import { insertInto, updateOf } from './statements.js';
import { encode, webhookDeliveries, webhookEndpoints } from './tables.js';

const queued = "status IN ('pending', 'retrying')";

export const webhookStatements = ({ lock }: SqlDialect) => ({
  insertWebhookEvent: 'INSERT INTO webhook_events (id, type, account_id, subject_id, created_at, data, traceparent) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING sequence',
  // The endpoints an event goes to, locked FOR SHARE on PostgreSQL: an endpoint disabled meanwhile
  // waits for this commit and then fails what it queued; one disabled first is read afresh and left out.
  endpointsOfEvent: `SELECT * FROM webhook_endpoints WHERE account_id = ?${lock.share}`,
  sharedWebhookEndpoint: `SELECT * FROM webhook_endpoints WHERE id = ? AND account_id = ?${lock.share}`,
  insertWebhookEndpoint: insertInto(webhookEndpoints),
  // The account's row locked: concurrent inserts of one account count one after another.
  lockAccountForEndpoint: `SELECT id FROM accounts WHERE id = ?${lock.update}`,
  countWebhookEndpoints: 'SELECT COUNT(*) AS count FROM webhook_endpoints WHERE account_id = ?',
  getWebhookEndpoint: 'SELECT * FROM webhook_endpoints WHERE id = ? AND account_id = ?',
  getWebhookEndpointForUpdate: `SELECT * FROM webhook_endpoints WHERE id = ? AND account_id = ?${lock.update}`,
  webhookEndpointById: 'SELECT * FROM webhook_endpoints WHERE id = ?',
  lockWebhookEndpoint: `SELECT * FROM webhook_endpoints WHERE id = ?${lock.update}`,
  listWebhookEndpoints: 'SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at DESC, id DESC',
  updateWebhookEndpoint: updateOf(webhookEndpoints),
  // The old secret from the row as it was: SET reads the values before the update.
  rotateWebhookSecret: 'UPDATE webhook_endpoints SET previous_secret = secret, secret = ?, previous_secret_expires_at = ?, updated_at = ? WHERE id = ? AND account_id = ?',
  setWebhookFailingSince: 'UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?',
  deleteWebhookEndpoint: 'DELETE FROM webhook_endpoints WHERE id = ? AND account_id = ?',
  insertWebhookDelivery: insertInto(webhookDeliveries),
  getWebhookDelivery: 'SELECT * FROM webhook_deliveries WHERE id = ? AND account_id = ?',
  webhookDeliveryById: 'SELECT * FROM webhook_deliveries WHERE id = ?',
  getWebhookEvent: 'SELECT * FROM webhook_events WHERE id = ?',
  // Four slots for the statuses a list asks for (a shorter list repeats its last one).
  listEndpointDeliveries: `SELECT * FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ? AND status IN (?, ?, ?, ?)
    ORDER BY created_at DESC, event_sequence DESC, id DESC LIMIT ? OFFSET ?`,
  countEndpointDeliveries: 'SELECT COUNT(*) AS total FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ? AND status IN (?, ?, ?, ?)',
  listAccountDeliveries: 'SELECT * FROM webhook_deliveries WHERE account_id = ? AND status IN (?, ?, ?, ?) ORDER BY created_at DESC, event_sequence DESC, id DESC LIMIT ? OFFSET ?',
  countAccountDeliveries: 'SELECT COUNT(*) AS total FROM webhook_deliveries WHERE account_id = ? AND status IN (?, ?, ?, ?)',
  // Read outside the transaction first: a worker's poll that finds nothing due takes no lock.
  anyDueWebhookDelivery: 'SELECT 1 AS due FROM webhook_deliveries WHERE next_attempt_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms <= ?) LIMIT 1',
  // The due rows no other claim holds: SKIP LOCKED on PostgreSQL, the write lock on SQLite.
  dueWebhookDeliveries: `SELECT id FROM webhook_deliveries WHERE next_attempt_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms <= ?)
    ORDER BY next_attempt_ms, event_sequence LIMIT ?${lock.skipLocked}`,
  leaseWebhookDelivery: 'UPDATE webhook_deliveries SET lease_holder = ?, lease_until_ms = ? WHERE id = ?',
  endpointOfWebhookDelivery: 'SELECT endpoint_id FROM webhook_deliveries WHERE id = ?',
  heldWebhookDelivery: `SELECT * FROM webhook_deliveries WHERE id = ? AND lease_holder = ? AND ${queued}${lock.delete}`,
  // An attempt recorded ends the lease.
  recordWebhookAttempt: 'UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_ms = ?, updated_at = ?, lease_holder = NULL, lease_until_ms = NULL WHERE id = ?',
  failQueuedWebhookDeliveries: `UPDATE webhook_deliveries SET status = 'failed', next_attempt_ms = NULL, lease_holder = NULL, lease_until_ms = NULL, updated_at = ?
    WHERE endpoint_id = ? AND ${queued}`,
  // Their deliveries go with them (ON DELETE CASCADE).
  purgeWebhookEvents: `DELETE FROM webhook_events WHERE id IN (
      SELECT id FROM webhook_events o WHERE o.created_at < ?
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = o.id AND d.${queued})
      ORDER BY o.created_at LIMIT ?)`,
  // Queued (pending or retrying) is exactly "has a next attempt" (webhook-records.ts): the due index serves it.
  webhookBacklog: 'SELECT COUNT(*) AS queued, MIN(CASE WHEN next_attempt_ms <= ? THEN next_attempt_ms END) AS oldest FROM webhook_deliveries WHERE next_attempt_ms IS NOT NULL',
});

/** What the webhook methods share: the database and its statements. */
export interface SqlWebhooks {
  db: SqlDatabase;
  s: ReturnType<typeof webhookStatements>;
}

export const endpointRow = (on: SqlSession, sql: string, ...params: unknown[]) => recordReader(on).one(webhookEndpoints, sql, ...params);
export const deliveryRow = (on: SqlSession, sql: string, ...params: unknown[]) => recordReader(on).one(webhookDeliveries, sql, ...params);
export const insertDelivery = ({ db, s }: SqlWebhooks, tx: SqlSession, record: WebhookDeliveryRecord) => tx.run(s.insertWebhookDelivery, encode(db.dialect, webhookDeliveries, record));
/** Every queued delivery of the endpoint failed (it was disabled). */
export const failQueued = ({ s }: SqlWebhooks, tx: SqlSession, endpointId: string, at: string) => tx.run(s.failQueuedWebhookDeliveries, [at, endpointId]);
