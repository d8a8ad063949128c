import type { LeasePort, UploadState, UploadsPort } from '../../core/ports/storage.js';
import { recordReader } from './rows.js';
import { fileFolder } from '../../core/versions/version-records.js';
import { fourSlots, type SqlDatabase, type SqlDialect, type SqlSession } from './session.js';
import { columnList, columnsOf, encode, uploads } from './tables.js';

/** An upload's share of its account's storage use (core/ports/uploads.ts, storageUse). */
const useSum = `COALESCE(SUM(CASE WHEN u.state = 'confirmed' THEN COALESCE(u.size, 0)
  WHEN COALESCE(u.size, 0) > u.reserved THEN u.size ELSE u.reserved END), 0)`;

export const uploadStatements = ({ jsonText, distinct }: SqlDialect) => ({
  // Nothing is recorded for an asset that is gone: its upload could never be confirmed. (One
  // deleted concurrently fails the foreign key instead; recordUpload treats that the same way.)
  // The listing's owner is kept beside the upload (migration 27), for storageUse's index.
  recordUpload: `INSERT INTO uploads (${columnList(uploads)}, owner_id) SELECT ${uploads.fields.map(() => '?').join(', ')}, a.owner_id FROM assets a WHERE a.id = ?
    ON CONFLICT (storage_path) DO UPDATE SET ${columnsOf(uploads)
      .filter((c) => c !== 'storage_path')
      .map((c) => `${c} = excluded.${c}`)
      .join(', ')}`,
  getUpload: 'SELECT * FROM uploads WHERE storage_path = ?',
  findUploadByPublicUrl: 'SELECT * FROM uploads WHERE public_url = ?',
  // One UPDATE, four slots for the states to move from: a concurrent claim finds the state moved and changes nothing.
  setUploadState: `UPDATE uploads SET state = ?, size = COALESCE(?, size)
    WHERE storage_path = ? AND state IN (?, ?, ?, ?) AND EXISTS (SELECT 1 FROM assets WHERE id = uploads.asset_id)`,
  listGarbage: 'SELECT storage_path FROM upload_garbage ORDER BY storage_path LIMIT ?',
  // Not confirmed, expired, and pointed at by no record: a listing's file, an image, a version's file
  // or gallery image (a confirm under way sets the record first). A gallery is a JSON array: its
  // text holds the path in quotes when an image of it is this upload's.
  listExpiredUploads: `SELECT u.storage_path FROM uploads u JOIN assets a ON a.id = u.asset_id
    WHERE u.state IN ('issued', 'receiving', 'appending', 'uploaded') AND u.expires_at < ?
      AND ${distinct(jsonText('a.file', 'storage_path'), 'u.storage_path')}
      AND NOT EXISTS (SELECT 1 FROM images i WHERE i.asset_id = u.asset_id AND i.storage_path = u.storage_path)
      AND NOT EXISTS (SELECT 1 FROM asset_versions v WHERE v.asset_id = u.asset_id AND (${jsonText('v.file', 'storage_path')} = u.storage_path
        OR (v.gallery IS NOT NULL AND CAST(v.gallery AS TEXT) LIKE '%"' || u.storage_path || '"%')))
    LIMIT ?`,
  forgetGarbage: 'DELETE FROM upload_garbage WHERE storage_path = ?',
  forgetUpload: 'DELETE FROM uploads WHERE storage_path = ?',
  storageUse: `SELECT ${useSum} AS bytes FROM uploads u WHERE u.owner_id = ?`,
  reservationOf: `SELECT u.asset_id, u.kind, u.state, u.reserved, a.owner_id FROM uploads u JOIN assets a ON a.id = u.asset_id WHERE u.storage_path = ?`,
  // The use beside one upload's: a file upload leaves out the confirmed files of its own folder (what
  // it replaces: a listing's draft file, or a version's; never the live file beside a version's).
  useBesides: `SELECT ${useSum} AS bytes FROM uploads u
    WHERE u.owner_id = ? AND u.storage_path <> ? AND NOT (u.asset_id = ? AND u.kind = 'file' AND u.state = 'confirmed' AND ? = 'file' AND u.storage_path LIKE ?)`,
  setReservation: `UPDATE uploads SET reserved = ? WHERE storage_path = ? AND state <> 'confirmed'`,
  // Taken when free, expired, or already this holder's: one statement, so two takers cannot both win.
  tryLease: `INSERT INTO job_leases (name, holder, until_ms) VALUES (?, ?, ?)
    ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_ms = excluded.until_ms
    WHERE job_leases.holder = excluded.holder OR job_leases.until_ms <= ?`,
});

/** Issued uploads, their garbage and an account's storage use (core/ports/uploads.ts), and the job leases (core/ports/leases.ts). */
export function uploadMethods(db: SqlDatabase): UploadsPort & LeasePort {
  const s = uploadStatements(db.dialect);
  const { one } = recordReader(db);
  return {
    async recordUpload(upload) {
      try {
        await db.run(s.recordUpload, [...encode(db.dialect, uploads, upload), upload.asset_id]);
      } catch (error) {
        // The asset was deleted while this insert waited for it: nothing is recorded, as for one already gone.
        if (!db.dialect.isForeignKeyViolation(error)) throw error;
      }
    },
    async getUpload(storagePath) {
      return one(uploads, s.getUpload, storagePath);
    },
    async findUploadByPublicUrl(publicUrl) {
      return one(uploads, s.findUploadByPublicUrl, publicUrl);
    },
    async setUploadState(storagePath, from, to, size) {
      return (await db.run(s.setUploadState, [to, size ?? null, storagePath, ...fourSlots<UploadState | null>(from, null)])) === 1;
    },
    async listUploadGarbage(expiredBefore, limit) {
      const found = (await db.all(s.listGarbage, [limit])).map((r) => r.storage_path as string);
      if (found.length < limit) {
        const cutoff = new Date(expiredBefore).toISOString();
        for (const r of await db.all(s.listExpiredUploads, [cutoff, limit - found.length])) found.push(r.storage_path as string);
      }
      return found;
    },
    async forgetUploads(storagePaths) {
      if (storagePaths.length === 0) return;
      await db.transaction(async (tx) => {
        for (const path of storagePaths) {
          await tx.run(s.forgetGarbage, [path]);
          await tx.run(s.forgetUpload, [path]);
        }
      });
    },
    async storageUse(accountId) {
      return Number((await db.all(s.storageUse, [accountId]))[0]?.bytes ?? 0);
    },
    async reserveUpload(storagePath, bytes, quota) {
      const [row] = await db.all(s.reservationOf, [storagePath]);
      if (!row || row.state === 'confirmed') return false;
      const set = async (on: SqlSession) => (await on.run(s.setReservation, [bytes, storagePath])) === 1;
      if (quota === null || bytes <= Number(row.reserved)) return set(db);
      // Every growing reservation of the account takes its turn (PostgreSQL: an advisory lock on the
      // account; SQLite: the write lock), so the use read below stays true until the update commits.
      return db.transaction(async (tx) => {
        if (db.dialect.nameLock) await tx.all(db.dialect.nameLock, [`storage-use:${row.owner_id as string}`]);
        const [use] = await tx.all(s.useBesides, [row.owner_id, storagePath, row.asset_id, row.kind, `${fileFolder(storagePath)}%`]);
        return Number(use?.bytes ?? 0) + bytes <= quota && set(tx);
      });
    },
    async tryLease(name, holder, nowMs, ttlMs) {
      return (await db.run(s.tryLease, [name, holder, nowMs + ttlMs, nowMs])) === 1;
    },
  };
}
