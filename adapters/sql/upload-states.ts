import type { UploadStateChange, UploadStatePort } from '../../core/ports/upload-state.js';
import { recordReader } from './rows.js';
import type { SqlDatabase } from './session.js';
import { insertInto } from './statements.js';
import { columnList, encode, sqlName, uploadStates } from './tables.js';

/** The columns an append sets, in the order `advanceUploadState` names them. */
const changed = ['offset', 'hash_state', 'sha256', 'parts', 'store_upload_id', 'store_key', 'updated_at'] as const satisfies readonly (keyof UploadStateChange)[];

export const uploadStateStatements = {
  createUploadState: `${insertInto(uploadStates)} ON CONFLICT (storage_path) DO NOTHING`,
  getUploadState: `SELECT ${columnList(uploadStates)} FROM upload_states WHERE storage_path = ?`,
  // Free, lapsed, or already this holder's, in one statement: of two concurrent takers the second
  // waits for the row (PostgreSQL) or the write lock (SQLite), re-checks the WHERE and changes nothing.
  leaseUploadState: 'UPDATE upload_states SET lease_holder = ?, lease_until_ms = ? WHERE storage_path = ? AND (lease_holder IS NULL OR lease_holder = ? OR lease_until_ms <= ?)',
  releaseUploadState: 'UPDATE upload_states SET lease_holder = NULL, lease_until_ms = NULL WHERE storage_path = ? AND lease_holder = ?',
  // The compare-and-set on the offset: the new offset and its hash state in one row write, so a reader never sees a mix.
  advanceUploadState: `UPDATE upload_states SET ${changed.map((c) => `${sqlName(c)} = ?`).join(', ')} WHERE storage_path = ? AND ${sqlName('offset')} = ?`,
  // The same, fenced by the lease: only the request that holds the upload moves its offset.
  advanceHeldUploadState: `UPDATE upload_states SET ${changed.map((c) => `${sqlName(c)} = ?`).join(', ')} WHERE storage_path = ? AND ${sqlName('offset')} = ? AND lease_holder = ?`,
  deleteUploadState: 'DELETE FROM upload_states WHERE storage_path = ?',
  listExpiredUploadStates: 'SELECT storage_path FROM upload_states WHERE expires_at < ? ORDER BY expires_at LIMIT ?',
};

/**
 * Uploads in progress (core/ports/upload-state.ts) in `upload_states` (migrations 11 and 17),
 * written once. Each method is one statement, outside any transaction,
 * so the lease and the compare-and-set are atomic as they stand, across instances too.
 */
export function uploadStateMethods(db: SqlDatabase): UploadStatePort {
  const s = uploadStateStatements;
  const { one } = recordReader(db);
  return {
    create: async (record) => (await db.run(s.createUploadState, encode(db.dialect, uploadStates, record))) === 1,
    get: (storagePath) => one(uploadStates, s.getUploadState, storagePath),
    lease: async (storagePath, holder, nowMs, untilMs) => (await db.run(s.leaseUploadState, [holder, untilMs, storagePath, holder, nowMs])) === 1,
    async release(storagePath, holder) {
      await db.run(s.releaseUploadState, [storagePath, holder]);
    },
    async advance(storagePath, fromOffset, change, holder) {
      const values = [...encode(db.dialect, uploadStates, change, changed), storagePath, fromOffset];
      return (await (holder === undefined ? db.run(s.advanceUploadState, values) : db.run(s.advanceHeldUploadState, [...values, holder]))) === 1;
    },
    async delete(storagePath) {
      await db.run(s.deleteUploadState, [storagePath]);
    },
    listExpired: async (before, limit) => (await db.all(s.listExpiredUploadStates, [before, limit])).map((row) => String(row.storage_path)),
  };
}
