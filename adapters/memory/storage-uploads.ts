import { fileFolder } from '../../core/versions/version-records.js';
import type { IssuedUploadRecord, StoragePort } from '../../core/ports/storage.js';
import { copy, type MemoryStorageState } from './storage-state.js';

/** The memory store's issued uploads, their garbage, storage use, and job leases. */
export function uploadMethods(s: MemoryStorageState): Pick<StoragePort, 'recordUpload' | 'getUpload' | 'setUploadState' | 'listUploadGarbage' | 'forgetUploads' | 'storageUse' | 'reserveUpload' | 'tryLease' | 'findUploadByPublicUrl'> {
  return {
    async recordUpload(upload) {
      if (s.assets.has(upload.asset_id)) s.uploads.set(upload.storage_path, copy(upload));
    },
    async getUpload(storagePath) {
      const upload = s.uploads.get(storagePath);
      return upload ? copy(upload) : null;
    },
    async setUploadState(storagePath, from, to, size) {
      const upload = s.uploads.get(storagePath);
      if (!upload || !from.includes(upload.state) || !s.assets.has(upload.asset_id)) return false;
      s.uploads.set(storagePath, { ...upload, state: to, size: size ?? upload.size });
      return true;
    },
    async listUploadGarbage(expiredBefore, limit) {
      const cutoff = Date.parse(expiredBefore);
      const found = [...s.garbage.values()].slice(0, limit);
      for (const upload of s.uploads.values()) {
        if (found.length >= limit) break;
        const asset = s.assets.get(upload.asset_id);
        if (upload.state === 'confirmed' || !(Date.parse(upload.expires_at) < cutoff) || s.garbage.has(upload.storage_path)) continue;
        const referenced =
          asset?.file?.storage_path === upload.storage_path ||
          [...s.images.values()].some((image) => image.asset_id === upload.asset_id && image.storage_path === upload.storage_path) ||
          [...s.versions.values()].some((version) => version.asset_id === upload.asset_id && (version.file?.storage_path === upload.storage_path || !!version.gallery?.some((image) => image.storage_path === upload.storage_path)));
        if (!referenced) found.push(upload.storage_path);
      }
      return found;
    },
    async forgetUploads(storagePaths) {
      for (const path of storagePaths) {
        s.garbage.delete(path);
        const upload = s.uploads.get(path);
        if (upload) s.uploads.delete(path);
        s.reservations.delete(path);
      }
    },
    async storageUse(accountId) {
      return useOf(s, accountId, () => true);
    },
    // Synchronous from the read to the write: nothing else runs in between, so it is atomic.
    async reserveUpload(storagePath, bytes, quota) {
      const upload = s.uploads.get(storagePath);
      const owner = upload && s.assets.get(upload.asset_id)?.owner_id;
      if (!upload || !owner || upload.state === 'confirmed') return false;
      if (quota !== null && bytes > (s.reservations.get(storagePath) ?? 0)) {
        // A file replaces the confirmed file of its own folder only: a listing's draft file, or a version's (never the live one).
        const replaced = (other: IssuedUploadRecord) => upload.kind === 'file' && other.kind === 'file' && other.asset_id === upload.asset_id && other.state === 'confirmed' && fileFolder(other.storage_path) === fileFolder(storagePath);
        if (useOf(s, owner, (other) => other.storage_path !== storagePath && !replaced(other)) + bytes > quota) return false;
      }
      s.reservations.set(storagePath, bytes);
      return true;
    },
    async tryLease(name, holder, nowMs, ttlMs) {
      const lease = s.leases.get(name);
      if (lease && lease.holder !== holder && lease.untilMs > nowMs) return false;
      s.leases.set(name, { holder, untilMs: nowMs + ttlMs });
      return true;
    },
    async findUploadByPublicUrl(publicUrl) {
      for (const upload of s.uploads.values()) if (upload.public_url === publicUrl) return copy(upload);
      return null;
    },
  };
}

/** What the account's uploads that `counted` keeps hold (core/ports/uploads.ts, storageUse). */
function useOf(s: MemoryStorageState, accountId: string, counted: (upload: IssuedUploadRecord) => boolean): number {
  let bytes = 0;
  for (const upload of s.uploads.values()) {
    if (s.assets.get(upload.asset_id)?.owner_id !== accountId || !counted(upload)) continue;
    const size = upload.size ?? 0;
    bytes += upload.state === 'confirmed' ? size : Math.max(size, s.reservations.get(upload.storage_path) ?? 0);
  }
  return bytes;
}
