import type { UploadStatePort, UploadStateRecord } from '../../core/ports/upload-state.js';
import type { PgRow } from './driver.js';
import { openPostgres, type PostgresOptions } from './options.js';

const who = 'marketkit postgresUploadStates';
const columns = 'storage_path, length, "offset", hash_state, sha256, store_upload_id, parts, expires_at, updated_at';

const statements = {
  create: { name: 'us_create', text: `INSERT INTO upload_states (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (storage_path) DO NOTHING` },
  get: { name: 'us_get', text: `SELECT ${columns} FROM upload_states WHERE storage_path = $1` },
  lease: { name: 'us_lease', text: 'UPDATE upload_states SET lease_holder = $1, lease_until_ms = $2 WHERE storage_path = $3 AND (lease_holder IS NULL OR lease_holder = $1 OR lease_until_ms <= $4)' },
  release: { name: 'us_release', text: 'UPDATE upload_states SET lease_holder = NULL, lease_until_ms = NULL WHERE storage_path = $1 AND lease_holder = $2' },
  advance: {
    name: 'us_advance',
    text: 'UPDATE upload_states SET "offset" = $1, hash_state = $2, sha256 = $3, parts = $4, store_upload_id = $5, updated_at = $6 WHERE storage_path = $7 AND "offset" = $8',
  },
  delete: { name: 'us_delete', text: 'DELETE FROM upload_states WHERE storage_path = $1' },
  expired: { name: 'us_expired', text: 'SELECT storage_path FROM upload_states WHERE expires_at < $1 ORDER BY expires_at LIMIT $2' },
};

function decode(row: PgRow): UploadStateRecord {
  return {
    storage_path: String(row.storage_path),
    length: row.length === null ? null : Number(row.length),
    offset: Number(row.offset),
    hash_state: (row.hash_state as string | null) ?? null,
    sha256: (row.sha256 as string | null) ?? null,
    store_upload_id: (row.store_upload_id as string | null) ?? null,
    parts: row.parts as UploadStateRecord['parts'],
    expires_at: String(row.expires_at),
    updated_at: String(row.updated_at),
  };
}

/**
 * The upload-state port on PostgreSQL, for any number of instances: each method is one statement,
 * so the lease and the compare-and-set on the offset are atomic across instances.
 */
export async function postgresUploadStates(options: PostgresOptions): Promise<UploadStatePort & { close(): Promise<void> }> {
  const db = await openPostgres(options, who);
  const run = async (statement: (typeof statements)[keyof typeof statements], ...params: unknown[]) => db.query(statement, params);
  return {
    async create(r) {
      return (await run(statements.create, r.storage_path, r.length, r.offset, r.hash_state, r.sha256, r.store_upload_id, JSON.stringify(r.parts), r.expires_at, r.updated_at)).rowCount === 1;
    },
    async get(storagePath) {
      const [row] = (await run(statements.get, storagePath)).rows;
      return row ? decode(row) : null;
    },
    async lease(storagePath, holder, nowMs, untilMs) {
      return (await run(statements.lease, holder, untilMs, storagePath, nowMs)).rowCount === 1;
    },
    async release(storagePath, holder) {
      await run(statements.release, storagePath, holder);
    },
    async advance(storagePath, fromOffset, c) {
      return (await run(statements.advance, c.offset, c.hash_state, c.sha256, JSON.stringify(c.parts), c.store_upload_id, c.updated_at, storagePath, fromOffset)).rowCount === 1;
    },
    async delete(storagePath) {
      await run(statements.delete, storagePath);
    },
    async listExpired(before, limit) {
      return (await run(statements.expired, before, limit)).rows.map((row) => String(row.storage_path));
    },
    close: () => db.close(),
  };
}
