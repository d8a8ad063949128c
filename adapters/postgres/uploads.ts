import type { StoragePort } from '../../core/ports/storage.js';
import { sqlState, type PgRow } from './driver.js';
import type { QueryName } from './queries.js';
import { encode, uploads, type RecordTable } from './records.js';

/** The statements of postgres-storage.ts, on the pool. */
interface Queries {
  rows(name: QueryName, ...params: unknown[]): Promise<PgRow[]>;
  row(name: QueryName, ...params: unknown[]): Promise<PgRow | undefined>;
  run(name: QueryName, ...params: unknown[]): Promise<number>;
  one<R>(table: RecordTable<R>, name: QueryName, ...params: unknown[]): Promise<R | null>;
}

type UploadMethods = 'recordUpload' | 'getUpload' | 'findUploadByPublicUrl' | 'setUploadState' | 'listUploadGarbage' | 'forgetUploads' | 'storageUse' | 'tryLease';

/** Issued uploads, their garbage, an account's storage use and the job leases on PostgreSQL (core/ports/storage.ts). */
export function uploadMethods({ rows, row, run, one }: Queries): Pick<StoragePort, UploadMethods> {
  return {
    async recordUpload(upload) {
      try {
        await run('recordUpload', ...encode(uploads, upload), upload.asset_id);
      } catch (error) {
        // The asset was deleted while this insert waited for it: nothing is recorded, as for one already gone.
        if (sqlState(error) !== '23503') throw error;
      }
    },
    async getUpload(storagePath) {
      return one(uploads, 'getUpload', storagePath);
    },
    async findUploadByPublicUrl(publicUrl) {
      return one(uploads, 'findUploadByPublicUrl', publicUrl);
    },
    async setUploadState(storagePath, from, to, size) {
      return (await run('setUploadState', to, size ?? null, storagePath, [...from])) === 1;
    },
    async listUploadGarbage(expiredBefore, limit) {
      const found = (await rows('listGarbage', limit)).map((r) => r.storage_path as string);
      if (found.length < limit) {
        const cutoff = new Date(expiredBefore).toISOString();
        for (const r of await rows('listExpiredUploads', cutoff, limit - found.length)) found.push(r.storage_path as string);
      }
      return found;
    },
    async forgetUploads(storagePaths) {
      if (storagePaths.length > 0) await run('forgetUploads', [...storagePaths]);
    },
    async storageUse(accountId) {
      return Number((await row('storageUse', accountId))?.bytes ?? 0);
    },
    async tryLease(name, holder, nowMs, ttlMs) {
      return (await run('tryLease', name, holder, nowMs + ttlMs, nowMs)) === 1;
    },
  };
}
