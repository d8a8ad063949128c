import type { PgStatement } from './driver.js';
import { columnList, updatedColumns } from '../sql-records.js';
import { accounts, assets, categories, columnsOf, images, tokens, uploads, webhookDeliveries, webhookEndpoints, type RecordTable } from './records.js';

const placeholders = <R>(t: RecordTable<R>, from = 1) => columnsOf(t).map((_, i) => `$${i + from}`).join(', ');
const insert = <R>(t: RecordTable<R>) => `INSERT INTO ${t.name} (${columnList(t)}) VALUES (${placeholders(t)})`;

export { updatedColumns };
const update = <R>(t: RecordTable<R>, where = '') => {
  const set = columnsOf(t).filter((c) => c !== t.key);
  return `UPDATE ${t.name} SET ${set.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE ${t.key} = $${set.length + 1}${where.replace('$next', `$${set.length + 2}`)}`;
};

/**
 * Every statement the adapter runs, by name. Each is prepared once per connection (a named
 * statement of node-postgres), and the schema test asks PostgreSQL how it runs each (EXPLAIN).
 */
export const sql = {
  insertAccount: insert(accounts),
  getAccount: 'SELECT * FROM accounts WHERE id = $1',
  // Locks the row for the rest of updateAccount's transaction: a concurrent update waits, then reads this one's result.
  getAccountForUpdate: 'SELECT * FROM accounts WHERE id = $1 FOR NO KEY UPDATE',
  findAccountByUsername: 'SELECT * FROM accounts WHERE username = $1',
  // Byte order whatever the database's collation, as the other adapters sort.
  listAccounts: 'SELECT * FROM accounts ORDER BY username COLLATE "C" ASC LIMIT $1 OFFSET $2',
  countAccounts: 'SELECT COUNT(*) AS total FROM accounts',
  updateAccount: update(accounts),

  insertToken: insert(tokens),
  findTokenByHash: 'SELECT * FROM tokens WHERE hash = $1',
  getToken: 'SELECT * FROM tokens WHERE id = $1',
  listTokens: 'SELECT * FROM tokens WHERE account_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id DESC',
  // COALESCE keeps the first revocation; the row comes back from the same statement.
  revokeToken: 'UPDATE tokens SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 AND account_id = $3 RETURNING *',
  touchToken: 'UPDATE tokens SET last_used_at = $1 WHERE id = $2',
  // With an event: only a live token is revoked, so that the event goes with the first revocation only.
  revokeLiveToken: 'UPDATE tokens SET revoked_at = $1 WHERE id = $2 AND account_id = $3 AND revoked_at IS NULL',
  getAccountToken: 'SELECT * FROM tokens WHERE id = $1 AND account_id = $2',

  insertCategory: insert(categories),
  getCategory: 'SELECT * FROM categories WHERE id = $1',
  renameCategory: 'UPDATE categories SET name = $1 WHERE id = $2 RETURNING *',
  listCategories: 'SELECT * FROM categories',

  // ON CONFLICT on the slug's unique index: a taken slug inserts nothing, in one statement (a
  // concurrent insert of the same slug waits for the first to commit, then inserts nothing).
  createAsset: `${insert(assets)} ON CONFLICT (slug) DO NOTHING`,
  getAsset: 'SELECT * FROM assets WHERE id = $1',
  getAssetForUpdate: 'SELECT * FROM assets WHERE id = $1 FOR NO KEY UPDATE',
  getAssetForDelete: 'SELECT * FROM assets WHERE id = $1 FOR UPDATE',
  listAssets: 'SELECT * FROM assets WHERE owner_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3',
  countAssets: 'SELECT COUNT(*) AS total FROM assets WHERE owner_id = $1',
  listAssetsByStatus: 'SELECT * FROM assets WHERE owner_id = $1 AND status = $2 ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4',
  countAssetsByStatus: 'SELECT COUNT(*) AS total FROM assets WHERE owner_id = $1 AND status = $2',
  listAssetsInStatus: 'SELECT * FROM assets WHERE status = $1 ORDER BY updated_at ASC, id ASC LIMIT $2 OFFSET $3',
  countAssetsInStatus: 'SELECT COUNT(*) AS total FROM assets WHERE status = $1',
  // Timestamps are stored as toISOString() text in byte order, so text order is time order.
  listDueScheduled: "SELECT * FROM assets WHERE status = 'scheduled' AND scheduled_publish_at <= $1 ORDER BY scheduled_publish_at ASC, id ASC LIMIT $2",
  // The revision in the WHERE is the compare-and-set: a stale writer changes no row.
  updateAsset: update(assets, ' AND revision = $next'),
  deleteAsset: 'DELETE FROM assets WHERE id = $1 AND revision = $2',

  // Nothing is recorded for an asset that is gone: its upload could never be confirmed. (One
  // deleted concurrently fails the foreign key instead; the adapter treats that the same way.)
  recordUpload: `INSERT INTO uploads (${columnList(uploads)}) SELECT ${placeholders(uploads)} WHERE EXISTS (SELECT 1 FROM assets WHERE id = $${columnsOf(uploads).length + 1})
    ON CONFLICT (storage_path) DO UPDATE SET ${columnsOf(uploads)
      .filter((c) => c !== 'storage_path')
      .map((c) => `${c} = excluded.${c}`)
      .join(', ')}`,
  getUpload: 'SELECT * FROM uploads WHERE storage_path = $1',
  findUploadByPublicUrl: 'SELECT * FROM uploads WHERE public_url = $1',
  uploadsOfAsset: 'SELECT * FROM uploads WHERE asset_id = $1 ORDER BY created_at, storage_path',
  deleteUploadsOfAsset: 'DELETE FROM uploads WHERE asset_id = $1',
  // One UPDATE: a concurrent claim waits for the row, then finds the state moved and changes nothing.
  setUploadState: `UPDATE uploads SET state = $1, size = COALESCE($2, size)
    WHERE storage_path = $3 AND state = ANY($4::text[]) AND EXISTS (SELECT 1 FROM assets WHERE id = uploads.asset_id)`,
  queueGarbage: 'INSERT INTO upload_garbage (storage_path) VALUES ($1) ON CONFLICT DO NOTHING',
  queueGarbageOfAsset: 'INSERT INTO upload_garbage (storage_path) SELECT storage_path FROM uploads WHERE asset_id = $1 ON CONFLICT DO NOTHING',
  listGarbage: 'SELECT storage_path FROM upload_garbage ORDER BY storage_path LIMIT $1',
  // Not confirmed, expired, and pointed at by no record (a confirm under way sets the record first).
  listExpiredUploads: `SELECT u.storage_path FROM uploads u JOIN assets a ON a.id = u.asset_id
    WHERE u.state IN ('issued', 'receiving', 'uploaded') AND u.expires_at < $1
      AND (a.file ->> 'storage_path') IS DISTINCT FROM u.storage_path
      AND NOT EXISTS (SELECT 1 FROM images i WHERE i.asset_id = u.asset_id AND i.storage_path = u.storage_path)
    LIMIT $2`,
  // Both tables in one statement.
  forgetUploads: `WITH garbage AS (DELETE FROM upload_garbage WHERE storage_path = ANY($1::text[]))
    DELETE FROM uploads WHERE storage_path = ANY($1::text[])`,
  storageUse: `SELECT COALESCE(SUM(u.size), 0) AS bytes FROM assets a JOIN uploads u ON u.asset_id = a.id
    WHERE a.owner_id = $1 AND u.state IN ('uploaded', 'confirmed')`,
  // Taken when free, expired, or already this holder's: one statement, so two takers cannot both win.
  tryLease: `INSERT INTO job_leases (name, holder, until_ms) VALUES ($1, $2, $3)
    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms
    WHERE job_leases.holder = excluded.holder OR job_leases.until_ms <= $4`,

  // addImage locks its asset's row first, so concurrent adds to one asset run one after another.
  lockAssetForImage: 'SELECT id FROM assets WHERE id = $1 FOR NO KEY UPDATE',
  insertImage: insert(images),
  imageByPath: 'SELECT * FROM images WHERE asset_id = $1 AND storage_path = $2',
  imageStats: 'SELECT COUNT(*) AS count, MAX(position) AS last FROM images WHERE asset_id = $1',
  listImages: 'SELECT * FROM images WHERE asset_id = $1 ORDER BY is_primary DESC, position ASC',
  deleteImagesOfAsset: 'DELETE FROM images WHERE asset_id = $1',

  // Webhooks (webhooks.ts). The event and its deliveries in one statement: the endpoints it goes to
  // are read FOR SHARE, so that an endpoint disabled meanwhile waits for this commit and then fails
  // what it queued, and one disabled first is read afresh and left out.
  writeWebhookEvent: `WITH e AS (
      INSERT INTO webhook_events (id, type, account_id, subject_id, created_at, data) VALUES ($1, $2, $3, $4, $5, $6) RETURNING sequence
    )
    INSERT INTO webhook_deliveries (${columnList(webhookDeliveries)})
    SELECT gen_random_uuid()::text, w.account_id, w.id, $1, $2, e.sequence, 'pending', '[]', $7, NULL, $5, $5
    FROM e, (SELECT * FROM webhook_endpoints WHERE account_id = $3 AND enabled AND (event_types ? '*' OR event_types ? $2) FOR SHARE) w
    RETURNING *`,
  // A test event: to one endpoint, locked by the caller's transaction first (webhookEndpointForShare).
  writeWebhookEventTo: `WITH e AS (
      INSERT INTO webhook_events (id, type, account_id, subject_id, created_at, data) VALUES ($1, $2, $3, $4, $5, $6) RETURNING sequence
    )
    INSERT INTO webhook_deliveries (${columnList(webhookDeliveries)})
    SELECT gen_random_uuid()::text, $3, $8, $1, $2, e.sequence, 'pending', '[]', $7, NULL, $5, $5 FROM e
    RETURNING *`,
  webhookEndpointForShare: 'SELECT enabled FROM webhook_endpoints WHERE id = $1 AND account_id = $2 FOR SHARE',
  insertWebhookEndpoint: insert(webhookEndpoints),
  // The account's row locked: concurrent inserts of one account count one after another.
  lockAccountForEndpoint: 'SELECT id FROM accounts WHERE id = $1 FOR NO KEY UPDATE',
  countWebhookEndpoints: 'SELECT COUNT(*) AS count FROM webhook_endpoints WHERE account_id = $1',
  getWebhookEndpoint: 'SELECT * FROM webhook_endpoints WHERE id = $1 AND account_id = $2',
  getWebhookEndpointForUpdate: 'SELECT * FROM webhook_endpoints WHERE id = $1 AND account_id = $2 FOR NO KEY UPDATE',
  webhookEndpointsById: 'SELECT * FROM webhook_endpoints WHERE id = ANY($1::text[])',
  lockWebhookEndpoint: 'SELECT * FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE',
  listWebhookEndpoints: 'SELECT * FROM webhook_endpoints WHERE account_id = $1 ORDER BY created_at DESC, id DESC',
  updateWebhookEndpoint: update(webhookEndpoints),
  // The old secret from the row as it was: SET reads the values before the update.
  rotateWebhookSecret: `UPDATE webhook_endpoints SET previous_secret = secret, secret = $1, previous_secret_expires_at = $2, updated_at = $3
    WHERE id = $4 AND account_id = $5 RETURNING *`,
  setWebhookFailingSince: 'UPDATE webhook_endpoints SET failing_since = $1 WHERE id = $2',
  deleteWebhookEndpoint: 'DELETE FROM webhook_endpoints WHERE id = $1 AND account_id = $2',
  insertWebhookDelivery: insert(webhookDeliveries),
  getWebhookDelivery: 'SELECT * FROM webhook_deliveries WHERE id = $1 AND account_id = $2',
  endpointOfWebhookDelivery: 'SELECT endpoint_id FROM webhook_deliveries WHERE id = $1',
  listEndpointDeliveries: `SELECT * FROM webhook_deliveries WHERE account_id = $1 AND endpoint_id = $2 AND status = ANY($3::text[])
    ORDER BY created_at DESC, event_sequence DESC, id DESC LIMIT $4 OFFSET $5`,
  countEndpointDeliveries: 'SELECT COUNT(*) AS total FROM webhook_deliveries WHERE account_id = $1 AND endpoint_id = $2 AND status = ANY($3::text[])',
  listAccountDeliveries: 'SELECT * FROM webhook_deliveries WHERE account_id = $1 AND status = ANY($2::text[]) ORDER BY created_at DESC, event_sequence DESC, id DESC LIMIT $3 OFFSET $4',
  countAccountDeliveries: 'SELECT COUNT(*) AS total FROM webhook_deliveries WHERE account_id = $1 AND status = ANY($2::text[])',
  // The claim, in one statement: the due rows no other claim holds (SKIP LOCKED: never waiting for
  // one), re-checked on their latest version once locked, leased and returned.
  claimWebhookDeliveries: `WITH due AS (
      SELECT id FROM webhook_deliveries
      WHERE next_attempt_ms <= $1 AND (lease_until_ms IS NULL OR lease_until_ms <= $1)
      ORDER BY next_attempt_ms, event_sequence LIMIT $2
      FOR UPDATE SKIP LOCKED
    )
    UPDATE webhook_deliveries d SET lease_holder = $3, lease_until_ms = $4 FROM due WHERE d.id = due.id
    RETURNING ${columnsOf(webhookDeliveries).map((c) => `d.${c}`).join(', ')}`,
  webhookEventsById: 'SELECT * FROM webhook_events WHERE id = ANY($1::text[])',
  heldWebhookDelivery: "SELECT * FROM webhook_deliveries WHERE id = $1 AND lease_holder = $2 AND status IN ('pending', 'retrying') FOR UPDATE",
  // An attempt recorded ends the lease.
  recordWebhookAttempt: 'UPDATE webhook_deliveries SET status = $1, attempts = $2, next_attempt_ms = $3, updated_at = $4, lease_holder = NULL, lease_until_ms = NULL WHERE id = $5',
  failQueuedWebhookDeliveries: `UPDATE webhook_deliveries SET status = 'failed', next_attempt_ms = NULL, lease_holder = NULL, lease_until_ms = NULL, updated_at = $1
    WHERE endpoint_id = $2 AND status IN ('pending', 'retrying')`,
  // Their deliveries go with them (ON DELETE CASCADE).
  purgeWebhookEvents: `DELETE FROM webhook_events WHERE id IN (
      SELECT id FROM webhook_events o WHERE o.created_at < $1
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = o.id AND d.status IN ('pending', 'retrying'))
      ORDER BY o.created_at LIMIT $2)`,

  ping: 'SELECT 1 AS ok',

  // The read cache's version (change-version.ts): sixteen rows, bumped by the writes' triggers (migration 3).
  changeVersion: 'SELECT sum(version)::int8 AS version FROM marketkit_changes',
  // maxStalenessMs mode: told after a write committed, with the writing instance's id.
  notifyChange: "SELECT pg_notify('marketkit_changes', $1)",
} as const;

export type QueryName = keyof typeof sql;

/** The statements as node-postgres named statements (prepared once per connection). */
export const statements = Object.fromEntries(Object.entries(sql).map(([name, text]) => [name, { name: `marketkit_storage_${name}`, text }])) as Record<QueryName, PgStatement>;
