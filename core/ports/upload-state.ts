/**
 * Where the state of an upload in progress lives (docs/uploads.md): how many bytes are durably
 * stored (the offset a tus HEAD reports), the SHA-256 state at that offset, the digest once the
 * bytes are whole, and for stores that keep an upload in parts (S3 multipart) its id and part list.
 * One record per issued upload, keyed by its storage path. It is a port of its own, apart from the
 * listing storage, so that every instance continues any upload from the record alone, and a store
 * that has no multipart upload ignores the fields it does not need.
 */

/** One part of a multipart upload (S3): its number, the ETag the store gave and its size. */
export interface UploadPart {
  number: number;
  etag: string;
  size: number;
}

export interface UploadStateRecord {
  storage_path: string;
  /** The bytes the whole upload will have (tus Upload-Length); null until declared. */
  length: number | null;
  /** Bytes durably stored, from the start: appends continue here and nowhere else. */
  offset: number;
  /** The saved SHA-256 state at `offset` (base64; core/uploads/sha256.ts); null when none was saved. */
  hash_state: string | null;
  /** The SHA-256 of the whole upload (lower-case hex), once its bytes are complete. */
  sha256: string | null;
  /** The store's own id for the upload (S3's UploadId); null for stores that append in place. */
  store_upload_id: string | null;
  /** The parts stored so far, in order (S3); empty for stores that append in place. */
  parts: UploadPart[];
  /**
   * The key the store keeps the upload's bytes under, and completes them at: for a resumable upload
   * of a listing's file its storage path itself, so that confirm-file moves nothing; for an image,
   * and for bytes a single PUT brought, null: the staging key (docs/uploads.md, "Where the bytes
   * are kept"). Records from before this field (migration 17) are null.
   */
  store_key: string | null;
  /** After this (ISO 8601) the upload takes no more bytes and the sweep may remove it. */
  expires_at: string;
  updated_at: string;
}

/** The fields an append changes. */
export type UploadStateChange = Pick<UploadStateRecord, 'offset' | 'hash_state' | 'sha256' | 'parts' | 'store_upload_id' | 'store_key' | 'updated_at'>;

export interface UploadStatePort {
  /** Records a new upload. MUST NOT replace one already recorded: false then, true when created. */
  create(record: UploadStateRecord): Promise<boolean>;
  /** The upload at this storage path; null when none. */
  get(storagePath: string): Promise<UploadStateRecord | null>;
  /**
   * Takes the upload's append lease for `holder` until `untilMs` (epoch ms): true when it was free,
   * expired, or already this holder's. Exactly one concurrent caller MUST win. A lease that dies
   * with its process lapses at `untilMs`, so another instance can continue the upload.
   */
  lease(storagePath: string, holder: string, nowMs: number, untilMs: number): Promise<boolean>;
  /** Gives the lease back (only when `holder` holds it). */
  release(storagePath: string, holder: string): Promise<void>;
  /**
   * Compare-and-set on the offset: applies `change` only when the stored offset is still
   * `fromOffset` and, when `holder` is given, the lease is still recorded as `holder`'s (lapsed or
   * not: nobody else took it); false otherwise (another append moved it or took the lease, or the
   * upload is gone). So the offset advances only with the bytes of the request that held the
   * upload. Atomic: a reader sees the old offset with the old hash state or the new with the new,
   * never a mix.
   */
  advance(storagePath: string, fromOffset: number, change: UploadStateChange, holder?: string): Promise<boolean>;
  /** Forgets the upload. Forgetting a missing one is not an error. */
  delete(storagePath: string): Promise<void>;
  /** Storage paths of uploads that expired before `before` (ISO 8601), at most `limit`, oldest first. */
  listExpired(before: string, limit: number): Promise<string[]>;
}
