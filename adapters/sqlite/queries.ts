import { idempotencyStatements } from '../sql/idempotency.js';
import { columnList, updatedColumns } from '../sql-records.js';
import { accounts, assets, categories, columnsOf, images, tokens, uploads, webhookDeliveries, webhookEndpoints, type RecordTable } from './records.js';

const placeholders = <R>(t: RecordTable<R>) => columnsOf(t).map(() => '?').join(', ');
const insert = <R>(t: RecordTable<R>) => `INSERT INTO ${t.name} (${columnList(t)}) VALUES (${placeholders(t)})`;

export { updatedColumns };
const update = <R>(t: RecordTable<R>, where = '') =>
  `UPDATE ${t.name} SET ${columnsOf(t)
    .filter((c) => c !== t.key)
    .map((c) => `${c} = ?`)
    .join(', ')} WHERE ${t.key} = ?${where}`;

/**
 * Every statement the adapter runs, by name, so that a test can ask SQLite how it runs each one
 * (EXPLAIN QUERY PLAN): every look-up must use an index.
 */
export const queries = {
  insertAccount: insert(accounts),
  getAccount: 'SELECT * FROM accounts WHERE id = ?',
  findAccountByUsername: 'SELECT * FROM accounts WHERE username = ?',
  // username has SQLite's default BINARY collation: byte order, as the other adapters sort, read off its unique index.
  listAccounts: 'SELECT * FROM accounts ORDER BY username ASC LIMIT ? OFFSET ?',
  countAccounts: 'SELECT COUNT(*) AS total FROM accounts',
  updateAccount: update(accounts),

  insertToken: insert(tokens),
  findTokenByHash: 'SELECT * FROM tokens WHERE hash = ?',
  getToken: 'SELECT * FROM tokens WHERE id = ?',
  listTokens: 'SELECT * FROM tokens WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC',
  revokeToken: 'UPDATE tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND account_id = ?',
  // With an event: only a live token is revoked, so that the event goes with the first revocation only.
  revokeLiveToken: 'UPDATE tokens SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL',
  getAccountToken: 'SELECT * FROM tokens WHERE id = ? AND account_id = ?',
  touchToken: 'UPDATE tokens SET last_used_at = ? WHERE id = ?',

  insertCategory: insert(categories),
  getCategory: 'SELECT * FROM categories WHERE id = ?',
  renameCategory: 'UPDATE categories SET name = ? WHERE id = ?',
  listCategories: 'SELECT * FROM categories',

  // ON CONFLICT on the slug's unique index: a taken slug inserts nothing, in one statement.
  createAsset: `${insert(assets)} ON CONFLICT (slug) DO NOTHING`,
  getAsset: 'SELECT * FROM assets WHERE id = ?',
  assetIdBySlug: 'SELECT id FROM assets WHERE slug = ?',
  listAssets: 'SELECT * FROM assets WHERE owner_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?',
  countAssets: 'SELECT COUNT(*) AS total FROM assets WHERE owner_id = ?',
  listAssetsByStatus: 'SELECT * FROM assets WHERE owner_id = ? AND status = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?',
  countAssetsByStatus: 'SELECT COUNT(*) AS total FROM assets WHERE owner_id = ? AND status = ?',
  listAssetsInStatus: 'SELECT * FROM assets WHERE status = ? ORDER BY updated_at ASC, id ASC LIMIT ? OFFSET ?',
  countAssetsInStatus: 'SELECT COUNT(*) AS total FROM assets WHERE status = ?',
  // Timestamps are stored as toISOString() text, so text order is time order.
  listDueScheduled:
    "SELECT * FROM assets WHERE status = 'scheduled' AND scheduled_publish_at <= ? ORDER BY scheduled_publish_at ASC, id ASC LIMIT ?",
  // The revision in the WHERE is the compare-and-set: a stale writer changes no row.
  updateAsset: update(assets, ' AND revision = ?'),
  deleteAsset: 'DELETE FROM assets WHERE id = ? AND revision = ?',

  // Nothing is recorded for an asset that is gone: its upload could never be confirmed.
  recordUpload: `INSERT OR REPLACE INTO uploads (${columnList(uploads)}) SELECT ${placeholders(uploads)} WHERE EXISTS (SELECT 1 FROM assets WHERE id = ?)`,
  getUpload: 'SELECT * FROM uploads WHERE storage_path = ?',
  findUploadByPublicUrl: 'SELECT * FROM uploads WHERE public_url = ?',
  uploadsOfAsset: 'SELECT * FROM uploads WHERE asset_id = ?',
  deleteUploadsOfAsset: 'DELETE FROM uploads WHERE asset_id = ?',
  // Four slots for the states to move from (a shorter list repeats its last one).
  setUploadState:
    'UPDATE uploads SET state = ?, size = COALESCE(?, size) WHERE storage_path = ? AND state IN (?, ?, ?, ?) AND EXISTS (SELECT 1 FROM assets WHERE id = uploads.asset_id)',
  queueGarbage: 'INSERT OR IGNORE INTO upload_garbage (storage_path) VALUES (?)',
  queueGarbageOfAsset: 'INSERT OR IGNORE INTO upload_garbage (storage_path) SELECT storage_path FROM uploads WHERE asset_id = ?',
  listGarbage: 'SELECT storage_path FROM upload_garbage ORDER BY storage_path LIMIT ?',
  // Not confirmed, expired, and pointed at by no record (a confirm under way sets the record first).
  listExpiredUploads: `SELECT u.storage_path FROM uploads u JOIN assets a ON a.id = u.asset_id
    WHERE u.state IN ('issued', 'receiving', 'uploaded') AND u.expires_at < ?
      AND json_extract(a.file, '$.storage_path') IS NOT u.storage_path
      AND NOT EXISTS (SELECT 1 FROM images i WHERE i.asset_id = u.asset_id AND i.storage_path = u.storage_path)
    LIMIT ?`,
  forgetGarbage: 'DELETE FROM upload_garbage WHERE storage_path = ?',
  forgetUpload: 'DELETE FROM uploads WHERE storage_path = ?',
  storageUse: `SELECT COALESCE(SUM(u.size), 0) AS bytes FROM assets a JOIN uploads u ON u.asset_id = a.id
    WHERE a.owner_id = ? AND u.state IN ('uploaded', 'confirmed')`,
  // Taken when free, expired, or already this holder's: one statement, so two takers cannot both win.
  tryLease: `INSERT INTO job_leases (name, holder, until_ms) VALUES (?, ?, ?)
    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms
    WHERE job_leases.holder = excluded.holder OR job_leases.until_ms <= ?`,

  insertImage: insert(images),
  imageByPath: 'SELECT * FROM images WHERE asset_id = ? AND storage_path = ?',
  imageStats: 'SELECT COUNT(*) AS count, MAX(position) AS last FROM images WHERE asset_id = ?',
  listImages: 'SELECT * FROM images WHERE asset_id = ? ORDER BY is_primary DESC, position ASC',
  deleteImagesOfAsset: 'DELETE FROM images WHERE asset_id = ?',

  ...idempotencyStatements,

  // Webhooks (webhooks.ts). Four slots for the statuses a list asks for (a shorter list repeats its last one).
  insertWebhookEvent: 'INSERT INTO webhook_events (id, type, account_id, subject_id, created_at, data) VALUES (?, ?, ?, ?, ?, ?) RETURNING sequence',
  getWebhookEvent: 'SELECT * FROM webhook_events WHERE id = ?',
  insertWebhookEndpoint: insert(webhookEndpoints),
  getWebhookEndpoint: 'SELECT * FROM webhook_endpoints WHERE id = ? AND account_id = ?',
  webhookEndpointById: 'SELECT * FROM webhook_endpoints WHERE id = ?',
  listWebhookEndpoints: 'SELECT * FROM webhook_endpoints WHERE account_id = ? ORDER BY created_at DESC, id DESC',
  countWebhookEndpoints: 'SELECT COUNT(*) AS count FROM webhook_endpoints WHERE account_id = ?',
  updateWebhookEndpoint: update(webhookEndpoints),
  // The old secret from the row as it was: SET reads the values before the update.
  rotateWebhookSecret: 'UPDATE webhook_endpoints SET previous_secret = secret, secret = ?, previous_secret_expires_at = ?, updated_at = ? WHERE id = ? AND account_id = ?',
  setWebhookFailingSince: 'UPDATE webhook_endpoints SET failing_since = ? WHERE id = ?',
  deleteWebhookEndpoint: 'DELETE FROM webhook_endpoints WHERE id = ? AND account_id = ?',
  insertWebhookDelivery: insert(webhookDeliveries),
  getWebhookDelivery: 'SELECT * FROM webhook_deliveries WHERE id = ? AND account_id = ?',
  webhookDeliveryById: 'SELECT * FROM webhook_deliveries WHERE id = ?',
  listEndpointDeliveries: `SELECT * FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ? AND status IN (?, ?, ?, ?)
    ORDER BY created_at DESC, event_sequence DESC, id DESC LIMIT ? OFFSET ?`,
  countEndpointDeliveries: 'SELECT COUNT(*) AS total FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ? AND status IN (?, ?, ?, ?)',
  listAccountDeliveries: 'SELECT * FROM webhook_deliveries WHERE account_id = ? AND status IN (?, ?, ?, ?) ORDER BY created_at DESC, event_sequence DESC, id DESC LIMIT ? OFFSET ?',
  countAccountDeliveries: 'SELECT COUNT(*) AS total FROM webhook_deliveries WHERE account_id = ? AND status IN (?, ?, ?, ?)',
  // Read without the write lock first: a worker's poll that finds nothing due takes no lock.
  anyDueWebhookDelivery: 'SELECT 1 AS due FROM webhook_deliveries WHERE next_attempt_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms <= ?) LIMIT 1',
  dueWebhookDeliveries: `SELECT id FROM webhook_deliveries WHERE next_attempt_ms <= ? AND (lease_until_ms IS NULL OR lease_until_ms <= ?)
    ORDER BY next_attempt_ms, event_sequence LIMIT ?`,
  leaseWebhookDelivery: 'UPDATE webhook_deliveries SET lease_holder = ?, lease_until_ms = ? WHERE id = ?',
  heldWebhookDelivery: "SELECT * FROM webhook_deliveries WHERE id = ? AND lease_holder = ? AND status IN ('pending', 'retrying')",
  // An attempt recorded ends the lease.
  recordWebhookAttempt: 'UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_ms = ?, updated_at = ?, lease_holder = NULL, lease_until_ms = NULL WHERE id = ?',
  failQueuedWebhookDeliveries: `UPDATE webhook_deliveries SET status = 'failed', next_attempt_ms = NULL, lease_holder = NULL, lease_until_ms = NULL, updated_at = ?
    WHERE endpoint_id = ? AND status IN ('pending', 'retrying')`,
  oldWebhookEvents: `SELECT id FROM webhook_events e WHERE created_at < ?
    AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status IN ('pending', 'retrying'))
    ORDER BY created_at LIMIT ?`,
  deleteWebhookEvent: 'DELETE FROM webhook_events WHERE id = ?',

  ping: 'SELECT 1 AS ok',
  // Changes made through this connection, and the count SQLite keeps of commits by any other one.
  changeVersion: 'SELECT total_changes() AS own, data_version AS others FROM pragma_data_version',
} as const;

export type QueryName = keyof typeof queries;
