import { parseOptions } from '../../core/options.js';
import type { UploadStatePort, UploadStateRecord } from '../../core/ports/upload-state.js';
import type { SqlRow } from './drivers/driver.js';
import { ConnectionOptionsSchema, openDatabase } from './open-database.js';
import type { SqliteStudioOptions } from './studio-storage.js';

const columns = 'storage_path, length, offset, hash_state, sha256, store_upload_id, parts, expires_at, updated_at';

function decode(row: SqlRow): UploadStateRecord {
  return {
    storage_path: String(row.storage_path),
    length: row.length === null ? null : Number(row.length),
    offset: Number(row.offset),
    hash_state: row.hash_state === null ? null : String(row.hash_state),
    sha256: row.sha256 === null ? null : String(row.sha256),
    store_upload_id: row.store_upload_id === null ? null : String(row.store_upload_id),
    parts: JSON.parse(String(row.parts)) as UploadStateRecord['parts'],
    expires_at: String(row.expires_at),
    updated_at: String(row.updated_at),
  };
}

/**
 * The upload-state port on a SQLite file (the listing storage's, or another), on a connection of
 * its own, migrated here. Every statement is one write, so each method is atomic as it stands.
 */
export async function sqliteUploadStates(options: SqliteStudioOptions): Promise<UploadStatePort & { close(): void }> {
  const config = parseOptions(ConnectionOptionsSchema, options, 'marketkit sqliteUploadStates');
  const db = await openDatabase({ ...config, foreignKeys: false }, 'marketkit sqliteUploadStates');
  const insert = db.prepare(`INSERT INTO upload_states (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (storage_path) DO NOTHING`);
  const select = db.prepare(`SELECT ${columns} FROM upload_states WHERE storage_path = ?`);
  const lease = db.prepare('UPDATE upload_states SET lease_holder = ?, lease_until_ms = ? WHERE storage_path = ? AND (lease_holder IS NULL OR lease_holder = ? OR lease_until_ms <= ?)');
  const release = db.prepare('UPDATE upload_states SET lease_holder = NULL, lease_until_ms = NULL WHERE storage_path = ? AND lease_holder = ?');
  const advance = db.prepare('UPDATE upload_states SET offset = ?, hash_state = ?, sha256 = ?, parts = ?, store_upload_id = ?, updated_at = ? WHERE storage_path = ? AND offset = ?');
  const remove = db.prepare('DELETE FROM upload_states WHERE storage_path = ?');
  const expired = db.prepare('SELECT storage_path FROM upload_states WHERE expires_at < ? ORDER BY expires_at LIMIT ?');
  return {
    async create(r) {
      return insert.run(r.storage_path, r.length, r.offset, r.hash_state, r.sha256, r.store_upload_id, JSON.stringify(r.parts), r.expires_at, r.updated_at).changes === 1;
    },
    async get(storagePath) {
      const row = select.get(storagePath);
      return row ? decode(row) : null;
    },
    async lease(storagePath, holder, nowMs, untilMs) {
      return lease.run(holder, untilMs, storagePath, holder, nowMs).changes === 1;
    },
    async release(storagePath, holder) {
      release.run(storagePath, holder);
    },
    async advance(storagePath, fromOffset, c) {
      return advance.run(c.offset, c.hash_state, c.sha256, JSON.stringify(c.parts), c.store_upload_id, c.updated_at, storagePath, fromOffset).changes === 1;
    },
    async delete(storagePath) {
      remove.run(storagePath);
    },
    async listExpired(before, limit) {
      return expired.all(before, limit).map((row) => String(row.storage_path));
    },
    close() {
      db.close();
    },
  };
}
