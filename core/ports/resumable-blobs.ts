import type { BlobInfo, ByteStream } from './blobs.js';
import type { UploadPart } from './upload-state.js';

/** Where an upload in progress stands in its store: the bytes so far, and for S3 its multipart id and parts. */
export interface StoredProgress {
  offset: number;
  /** The whole upload's length (tus Upload-Length): S3 sizes its parts by it. */
  length: number | null;
  storeUploadId: string | null;
  parts: UploadPart[];
}

/**
 * Thrown by the core's body (as it is read) to refuse an append: too many bytes, a chunk that does
 * not match its checksum, a checked chunk cut off. The store MUST then keep nothing of the append.
 */
export class AppendRefusedError extends Error {
  constructor(readonly reason: 'too-large' | 'checksum' | 'interrupted') {
    super(`append refused: ${reason}`);
    this.name = 'AppendRefusedError';
  }
}

/**
 * A blob store's capability to take an upload in appends (the resumable protocol,
 * docs/uploads.md), addressed by the staging key the upload completes into. fs and memory append
 * to a partial file; S3 will keep a multipart upload (its parts listed in StoredProgress).
 */
export interface ResumableBlobs {
  /**
   * Appends `body` at `from.offset`, first cutting off whatever the store holds past it (bytes of an
   * append that was never acknowledged). Resolves once the new bytes are durable (fsync), with the
   * new progress. When the body throws AppendRefusedError, nothing of this append is kept and the
   * error is rethrown; when it throws anything else (the client went away), the bytes received
   * are kept, made durable and reported, with `interrupted` set.
   */
  append(key: string, from: StoredProgress, body: ByteStream): Promise<StoredProgress & { interrupted?: unknown }>;
  /** Makes the upload's `length` bytes the object at `key` (as put would), and returns its info. */
  complete(key: string, progress: StoredProgress, contentType: string): Promise<BlobInfo>;
  /**
   * Optional: the SHA-256 (lower-case hex) of the `progress.offset` bytes the store holds, read
   * back. A store that has it lets the core hash an upload with a fast hasher whose state cannot be
   * saved, and hash it once more at completion only when its appends went to different instances
   * (core/uploads/append-hashing.ts); a store without it gets the saved state.
   */
  digest?(key: string, progress: StoredProgress): Promise<string>;
  /** Removes whatever the store keeps of an upload in progress. Aborting a missing one is not an error. */
  abort(key: string, progress: StoredProgress | null): Promise<void>;
  /**
   * Optional: removes what uploads in progress left in the store that nothing touched for
   * `untouchedForMs` (by the store's own clock: file times, S3's LastModified and Initiated), with
   * no record needed: partial files, temporary files, metadata without its object (fs), tail
   * objects and multipart uploads (S3). The sweep calls it with the longest an upload can take
   * bytes (the URL's life and the grace after it), so nothing a live upload may still write is
   * older. Resolves with how many things it removed.
   */
  removeLeftovers?(untouchedForMs: number): Promise<number>;
}

/** A blob store that has the capability: its `resumable` property. */
export type WithResumable = { resumable?: ResumableBlobs };

/** The store's resumable capability, when it has one. */
export function resumableOf(blobs: object): ResumableBlobs | undefined {
  return (blobs as WithResumable).resumable;
}
