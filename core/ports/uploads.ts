import type { IssuedUploadRecord, UploadState } from './records.js';

/**
 * Issued upload URLs, their one-use state and the garbage they leave: what the upload flow and its
 * sweep keep. One of the capability ports that make up StoragePort (core/ports/storage.ts).
 * Every method is atomic on its own and returns copies (core/ports/storage.ts, StoragePort).
 */
export interface UploadsPort {
  /** Records an issued upload URL (nothing when its asset is gone). */
  recordUpload(upload: IssuedUploadRecord): Promise<void>;
  /** The issued upload at this storage path; null when none was issued (or its asset is gone). */
  getUpload(storagePath: string): Promise<IssuedUploadRecord | null>;
  /**
   * Compare-and-set of an upload's state: moves it to `to` (and sets `size` when given) only if
   * its state is one of `from` and its asset still exists. False otherwise: another request moved
   * it first, or the listing was deleted. This is what makes a signed URL good for one upload.
   */
  setUploadState(storagePath: string, from: readonly UploadState[], to: UploadState, size?: number): Promise<boolean>;
  /**
   * Storage paths whose blobs are garbage, at most `limit` (the upload sweep, docs/security.md):
   * every upload of a deleted listing (deleteAsset keeps them for this, in its own transaction);
   * every upload not confirmed whose URL expired before `expiredBefore` (ISO 8601) and that no
   * record points at (a listing's file, an image, a version's file: core/ports/versions.ts); every
   * confirmed upload no record points at any more (a replaced file).
   */
  listUploadGarbage(expiredBefore: string, limit: number): Promise<string[]>;
  /** Forgets these uploads once their blobs are gone; listUploadGarbage no longer returns them. */
  forgetUploads(storagePaths: readonly string[]): Promise<void>;
  /**
   * An account's storage use: over the uploads of its listings, a confirmed upload's size, and for
   * every other its reservation or its size once known, whichever is larger (bytes still arriving,
   * uploads abandoned but not yet swept, all count).
   */
  storageUse(accountId: string): Promise<number>;
  /**
   * Sets the upload's reservation (the bytes it may hold before it is confirmed) to `bytes`, in one
   * atomic step against its account's quota (docs/uploads.md, "Quota"): granted when `quota` is
   * null, when `bytes` is no more than the upload reserves now, or when the account's storage use
   * without this upload, plus `bytes`, is at most `quota`. A file upload does not count its
   * listing's confirmed files (the file it would replace). Of concurrent reservations, on any
   * instance or process, never two are granted the same room. False, changing nothing, when
   * refused or when the upload is confirmed or gone. Confirming the upload turns it into stored
   * use (its size); forgetting it gives it back.
   */
  reserveUpload(storagePath: string, bytes: number, quota: number | null): Promise<boolean>;
  /** The issued image upload with this public URL; null when none. */
  findUploadByPublicUrl(publicUrl: string): Promise<IssuedUploadRecord | null>;
}
