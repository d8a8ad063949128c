import type { StoredProgress } from '../ports/resumable-blobs.js';
import type { UploadStateRecord } from '../ports/upload-state.js';

/** The state of an upload that has taken no byte yet; `storeKey`: where a resumable upload keeps its bytes (null: the staging key). */
export function newUploadState(storagePath: string, length: number | null, expiresAt: string, now: string, storeKey: string | null = null): UploadStateRecord {
  return { storage_path: storagePath, length, offset: 0, hash_state: null, sha256: null, store_upload_id: null, parts: [], store_key: storeKey, expires_at: expiresAt, updated_at: now };
}

/** What a store needs to continue (or abort) an upload: the record's offset, length and part list (S3). */
export function progressOf(state: UploadStateRecord): StoredProgress {
  return { offset: state.offset, length: state.length, storeUploadId: state.store_upload_id, parts: state.parts };
}
