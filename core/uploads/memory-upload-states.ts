import type { UploadStatePort, UploadStateRecord } from '../ports/upload-state.js';

const copy = (record: UploadStateRecord): UploadStateRecord => ({ ...record, parts: record.parts.map((part) => ({ ...part })) });

/**
 * The upload-state port in this process's memory: for one instance (a restart forgets uploads in
 * progress, whose next PATCH then gets 404); the default when createMarketplace is given none, as in the tests and `marketkit serve --memory`.
 */
export function memoryUploadStates(): UploadStatePort {
  const records = new Map<string, UploadStateRecord>();
  const leases = new Map<string, { holder: string; untilMs: number }>();
  return {
    async create(record) {
      if (records.has(record.storage_path)) return false;
      records.set(record.storage_path, copy(record));
      return true;
    },
    async get(storagePath) {
      const record = records.get(storagePath);
      return record ? copy(record) : null;
    },
    async lease(storagePath, holder, nowMs, untilMs) {
      if (!records.has(storagePath)) return false;
      const held = leases.get(storagePath);
      if (held && held.holder !== holder && held.untilMs > nowMs) return false;
      leases.set(storagePath, { holder, untilMs });
      return true;
    },
    async release(storagePath, holder) {
      if (leases.get(storagePath)?.holder === holder) leases.delete(storagePath);
    },
    async advance(storagePath, fromOffset, change, holder) {
      const record = records.get(storagePath);
      if (!record || record.offset !== fromOffset) return false;
      if (holder !== undefined && leases.get(storagePath)?.holder !== holder) return false;
      records.set(storagePath, copy({ ...record, ...change }));
      return true;
    },
    async delete(storagePath) {
      records.delete(storagePath);
      leases.delete(storagePath);
    },
    async listExpired(before, limit) {
      const cutoff = Date.parse(before);
      return [...records.values()]
        .filter((record) => Date.parse(record.expires_at) < cutoff)
        .sort((a, b) => a.expires_at.localeCompare(b.expires_at))
        .slice(0, limit)
        .map((record) => record.storage_path);
    },
  };
}
