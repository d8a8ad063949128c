/** Bytes as every runtime can stream them: a web ReadableStream and a Node stream are both this. */
export type ByteStream = AsyncIterable<Uint8Array>;

export interface BlobInfo {
  size: number;
  contentType: string;
}

export interface PutOptions {
  contentType: string;
  /** The most bytes to accept. Past it the put fails with `BlobTooLargeError` and keeps nothing. */
  maxBytes: number;
}

/** Thrown by `put` when the body passes `maxBytes`. Nothing of the body is kept. */
export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`blob larger than ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

export interface DirectUpload {
  /** Where the client PUTs the bytes, without an Authorization header. */
  url: string;
  /** Headers the client must send with the PUT, beyond Content-Type. */
  headers?: Record<string, string>;
}

/**
 * Where uploaded bytes live, addressed by storage path (`assets/{asset}/files/{uuid}/{name}`).
 * Paths come from the core, never straight from a client.
 */
export interface BlobPort {
  /**
   * Streams `body` into the object at `path`, replacing any object there. Atomic: a reader sees
   * the old object or the whole new one, never a part; when the body fails or is too large,
   * nothing of it is kept.
   */
  put(path: string, body: ByteStream, options: PutOptions): Promise<BlobInfo>;
  /** Size and content type of the object; null when there is none. */
  head(path: string): Promise<BlobInfo | null>;
  /** The first `length` bytes of the object (fewer if it is shorter); null when there is none. */
  readStart(path: string, length: number): Promise<Uint8Array | null>;
  /**
   * Optional: `length` bytes of the object from `offset` (fewer at its end, none past it), read
   * without the rest of it (a range GET, a positioned read); null when there is no object. For
   * reading a part of a large file (a zip archive's directory at its end) without the whole of it.
   */
  readRange?(path: string, offset: number, length: number): Promise<Uint8Array | null>;
  /** The object's bytes as a stream with its info; null when there is none. */
  get(path: string): Promise<(BlobInfo & { body: ByteStream }) | null>;
  /**
   * Moves the object at `from` to `to`, replacing any object there, and returns the info of what
   * now is at `to`; null when there is no object at `from`. A reader of `to` sees the old object
   * or the whole moved one. Confirm uses it to take an upload out of reach of its signed URL:
   * uploads land under a staging key, and no URL ever names the key they are moved to.
   */
  move(from: string, to: string): Promise<BlobInfo | null>;
  /** Removes the object. Removing a missing object is not an error. */
  delete(path: string): Promise<void>;
  /** Resolves when the store answers; throws when it does not (health check). */
  ping(): Promise<void>;
  /**
   * Stores that take uploads themselves (S3) issue their own signed URL here. Without it, the
   * core signs URLs served by its own `/api/v1/blobs/...` route and streams them into `put`.
   */
  issueDirectUpload?(path: string, options: { contentType?: string; maxBytes: number; expiresAt: Date }): Promise<DirectUpload>;
  /**
   * The most one PUT to an issueDirectUpload URL takes (S3: 5 GiB). An upload declared larger gets
   * a signed_url of the core's own route instead, which refuses the PUT with 413 naming upload_url:
   * such files go through the resumable protocol.
   */
  maxDirectUploadBytes?: number;
  /** A public address for an image, when the store has one (a CDN); else the core serves it. */
  publicUrl?(path: string): string;
  /**
   * Stores that serve reads themselves (S3) give a signed GET URL here, valid until `expiresAt`,
   * whose answer carries `contentType`. The core's image route then redirects to it instead of
   * streaming the bytes through the marketplace.
   */
  readUrl?(path: string, options: { contentType: string; expiresAt: Date }): Promise<string>;
}
