/**
 * The client's uploads in one call (client.ts: uploadFile, uploadImage): upload-url, the PUT of
 * the bytes (streamed, with progress) and the confirmation; a large file that can be read at any
 * offset goes up resumably instead (resumable-file.ts).
 */
import { MarketKitError } from './errors.js';
import type { Transport } from './http.js';
import { contentTypeOf, prepareSource, putToSignedUrl, type UploadProgress, type UploadSource } from './upload.js';
import { isRandomAccess, randomAccessOf, type RandomAccessSource, type ResumeStore } from './resumable.js';
import { uploadFileResumably } from './resumable-file.js';
import type * as T from './types.js';
import type { namedMethods, WriteOptions } from './named-methods.js';
import type { OperationMethods } from './operation-methods.js';

export interface UploadOptions {
  /** The file name the server records; default the source's own name (a File, fileSource). */
  filename?: string;
  /** Default: from the file name's extension (zip, webp, png, jpg), else application/octet-stream. */
  contentType?: string;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
  /**
   * Makes the whole upload safe to call again after a failure: each step's request carries a key
   * derived from this one, so a second call with the same key and source gets the first call's
   * upload URL and confirmation instead of a second upload (docs/client.md, "Safe retries").
   */
  idempotencyKey?: string;
  /**
   * uploadFile: the SHA-256 of the file (64 lower-case hex) as you know it, sent to confirm-file,
   * which refuses a mismatch (422 CHECKSUM_MISMATCH). By default the one the client computed while
   * uploading resumably (when the source can hash: fileSource on Node).
   */
  sha256?: string;
  /**
   * uploadFile: from this size on (bytes; default 64 MiB) a source the client can read at any
   * offset (a Blob, fileSource) goes up resumably, in chunks (docs/uploads.md, "Clients that
   * resume"); below it, or from a stream, in one PUT. `Infinity` keeps to the single PUT.
   */
  resumableThreshold?: number;
  /** The resumable way's chunk size, in bytes; default 8 MiB (one chunk is held in memory). */
  chunkSize?: number;
  /** The resumable way's failures in a row, without a byte acknowledged between them, before it gives up; default 10. */
  resumeAttempts?: number;
  /**
   * Where an upload in progress is remembered so that another call (after a crash, in another
   * process) goes on from the server's offset: default this client's memory; on Node
   * `fileResumeStore()` from marketkit/bindings/node keeps it in a JSON file.
   */
  resumeStore?: ResumeStore;
}

const MiB = 2 ** 20;

/**
 * The key of one step of a keyed upload: `upload-url:<key>` and `confirm:<key>`, with the key's
 * SHA-256 in place of a key too long to fit the 255 characters a key may have.
 */
async function stepKey(step: string, key: string): Promise<string> {
  if (step.length + 1 + key.length <= 255) return `${step}:${key}`;
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(key)));
  return `${step}:${Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

/** What the uploads need of the client: its transport, the steps' named methods, the default resume store. */
export interface ClientUploads {
  transport: Transport;
  steps: Pick<ReturnType<typeof namedMethods>, 'createUploadUrl' | 'confirmFile' | 'createImageUploadUrl' | 'confirmImage'>;
  /** The derived methods, for the steps that have no named method of their own (a version's). */
  operations: Pick<OperationMethods, 'createVersionUploadUrl' | 'confirmVersionFile'>;
  resumeStore: ResumeStore;
}

function nameOf(prepared: { name: string | undefined }, given: string | undefined): string {
  const name = given ?? prepared.name;
  if (!name) throw new TypeError('marketkit/client: name the file (options.filename): the source has no name of its own.');
  return name.split(/[\\/]/).pop()!;
}

/**
 * upload-url, the PUT, the confirmation. With an idempotency key, a call that repeats an earlier
 * one gets the same upload URL back (its key's kept answer); that URL then refuses a second PUT
 * (a URL takes one upload), which here means the earlier call's bytes are there, so the step goes
 * on to the confirmation, which the server checks against what was uploaded (or replays).
 */
async function uploadWhole<I extends { signed_url: string }, R>(
  transport: Transport,
  source: UploadSource,
  upload: UploadOptions,
  steps: { issue(name: string, write: WriteOptions): Promise<I>; confirm(issued: I, size: number, write: WriteOptions): Promise<R> },
): Promise<R> {
  const prepared = prepareSource(source);
  const filename = nameOf(prepared, upload.filename);
  const signal = upload.signal ? { signal: upload.signal } : {};
  const key = upload.idempotencyKey;
  const issued = await steps.issue(filename, { ...signal, ...(key !== undefined ? { idempotencyKey: await stepKey('upload-url', key) } : {}) });
  let size: number;
  try {
    size = await putToSignedUrl(transport, issued.signed_url, prepared, {
      contentType: upload.contentType ?? prepared.type ?? contentTypeOf(filename),
      ...(upload.onProgress ? { onProgress: upload.onProgress } : {}),
      ...signal,
    });
  } catch (error) {
    const repeated = key !== undefined && error instanceof MarketKitError && error.status === 403 && prepared.size !== null;
    if (!repeated) throw error;
    size = prepared.size!;
  }
  return steps.confirm(issued, size, { ...signal, ...(key !== undefined ? { idempotencyKey: await stepKey('confirm', key) } : {}) });
}

/** Where a file goes: its upload-url and confirm-file steps, and the key its resumable upload is remembered under. */
interface FileTarget {
  /** The listing's id, or a version's `{asset}/versions/{version}`: what a remembered upload is kept under. */
  key: string;
  issue(body: T.UploadUrlBody, write: WriteOptions): Promise<T.UploadUrl>;
  confirm(body: T.ConfirmFileBody, write: WriteOptions): Promise<T.ConfirmFileResult>;
}

/** upload-url, the bytes (one PUT, or resumably from the threshold on), confirm-file with the SHA-256, for `target`. */
async function uploadFileTo(transport: Transport, resumeStore: ResumeStore, target: FileTarget, source: UploadSource | RandomAccessSource, upload: UploadOptions): Promise<T.ConfirmFileResult> {
  const sha256 = upload.sha256 !== undefined ? { sha256: upload.sha256 } : {};
  // A Blob has a slice() of its own (giving a Blob): it is made a source first.
  const random = randomAccessOf(source) ?? (isRandomAccess(source) ? source : null);
  if (random && random.size >= (upload.resumableThreshold ?? 64 * MiB)) {
    const named = source as { name?: string };
    const signal = upload.signal ? { signal: upload.signal } : {};
    const key = upload.idempotencyKey;
    const keyed = async (step: string) => ({ ...signal, ...(key !== undefined ? { idempotencyKey: await stepKey(step, key) } : {}) });
    return uploadFileResumably(
      transport,
      target.key,
      nameOf({ name: named.name }, upload.filename),
      random,
      {
        issue: async (body) => target.issue(body, await keyed('upload-url')),
        confirm: async (body) => target.confirm(body, await keyed('confirm')),
      },
      {
        chunkSize: upload.chunkSize ?? 8 * MiB,
        attempts: upload.resumeAttempts ?? 10,
        store: upload.resumeStore ?? resumeStore,
        ...sha256,
        ...(upload.onProgress ? { onProgress: upload.onProgress } : {}),
        ...signal,
      },
    );
  }
  return uploadWhole(transport, source as UploadSource, upload, {
    issue: (name, write) => target.issue({ filename: name }, write),
    confirm: (issued, size, write) => target.confirm({ storage_path: issued.storage_path, file_size: size, ...sha256 }, write),
  });
}

/**
 * The listing's file in one call: upload-url, the PUT of the bytes (streamed, with progress),
 * confirm-file with the bytes sent. A new file replaces the previous one.
 */
export function uploadFile({ transport, steps, resumeStore }: ClientUploads, assetId: string, source: UploadSource | RandomAccessSource, upload: UploadOptions): Promise<T.ConfirmFileResult> {
  return uploadFileTo(transport, resumeStore, {
    key: assetId,
    issue: (body, write) => steps.createUploadUrl(assetId, body, write),
    confirm: (body, write) => steps.confirmFile(assetId, body, write),
  }, source, upload);
}

/**
 * A version's file in one call (docs/rest.md, "Versions of a published listing"), as uploadFile is
 * a listing's: the version's upload-url, the bytes, its confirm-file. The live listing's file is
 * not touched; the version goes live when a moderator approves it.
 */
export function uploadVersionFile({ transport, operations, resumeStore }: ClientUploads, assetId: string, versionId: string, source: UploadSource | RandomAccessSource, upload: UploadOptions): Promise<T.ConfirmFileResult> {
  const ids = { asset_id: assetId, version_id: versionId };
  return uploadFileTo(transport, resumeStore, {
    key: `${assetId}/versions/${versionId}`,
    issue: (body, write) => operations.createVersionUploadUrl({ ...ids, ...body }, write),
    confirm: (body, write) => operations.confirmVersionFile({ ...ids, ...body }, write),
  }, source, upload);
}

/** A gallery image in one call: images/upload-url, the PUT, confirm-image. The first image is the primary one. */
export async function uploadImage({ transport, steps }: ClientUploads, assetId: string, source: UploadSource, upload: UploadOptions): Promise<T.ConfirmImageResult> {
  return uploadWhole(transport, source, upload, {
    issue: (name, write) => steps.createImageUploadUrl(assetId, name, write),
    confirm: (issued, _size, write) => steps.confirmImage(assetId, issued.public_url, write),
  });
}
