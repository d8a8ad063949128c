/**
 * The typed REST client: `operations`, one method per operation of the OpenAPI document, derived
 * from the declarations; the named methods over them (named-methods.ts); and `uploadFile` /
 * `uploadImage`, which run upload-url, the streamed PUT and the confirmation in one call.
 * Fetch-based and free of runtime APIs, so it runs on Node, Bun, Deno and in browsers.
 */
import { MarketKitError } from './errors.js';
import { createTransport, type ClientOptions } from './http.js';
import { contentTypeOf, prepareSource, putToSignedUrl, type UploadProgress, type UploadSource } from './upload.js';
import { isRandomAccess, randomAccessOf, type RandomAccessSource, type ResumeStore } from './resumable.js';
import { memoryResumeStore, uploadFileResumably } from './resumable-file.js';
import type * as T from './types.js';
import { namedMethods, type WriteOptions } from './named-methods.js';
import { operationMethods } from './operation-methods.js';
import { urlOperations } from './url-operations.js';

export { contentTypeOf } from './upload.js';
export type { WriteOptions } from './named-methods.js';

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

export function createClient(options: ClientOptions) {
  const transport = createTransport(options);
  const { send } = transport;
  const operations = { ...operationMethods(send), ...urlOperations(transport) };
  const resumeStore = memoryResumeStore();

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
    assetId: string,
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

  const client = {
    /** The API base every call goes to (`https://market.example/api/v1`). */
    api: transport.api,

    /**
     * Any request under the API base, with the client's credential, retries and errors: for an
     * API with no declarations here (the admin surface, with `apiPath`). Resolves with the JSON body.
     */
    request: <R = unknown>(
      method: string,
      path: string,
      options: { query?: Record<string, string | number | undefined>; body?: unknown; idempotencyKey?: string; signal?: AbortSignal } = {},
    ) => send<R>(method, path, options),

    /**
     * Every operation of the OpenAPI document by its operationId, derived from its declaration:
     * `client.operations.getAsset({ asset_id })`, the input and result typed by its schemas.
     */
    operations,

    ...namedMethods(operations),

    /**
     * The listing's file in one call: upload-url, the PUT of the bytes (streamed, with progress),
     * confirm-file with the bytes sent. A new file replaces the previous one.
     */
    async uploadFile(assetId: string, source: UploadSource | RandomAccessSource, upload: UploadOptions = {}): Promise<T.ConfirmFileResult> {
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
          assetId,
          nameOf({ name: named.name }, upload.filename),
          random,
          {
            issue: async (body) => client.createUploadUrl(assetId, body, await keyed('upload-url')),
            confirm: async (body) => client.confirmFile(assetId, body, await keyed('confirm')),
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
      return uploadWhole(assetId, source as UploadSource, upload, {
        issue: (name, write) => client.createUploadUrl(assetId, name, write),
        confirm: (issued, size, write) => client.confirmFile(assetId, { storage_path: issued.storage_path, file_size: size, ...sha256 }, write),
      });
    },

    /** A gallery image in one call: images/upload-url, the PUT, confirm-image. The first image is the primary one. */
    async uploadImage(assetId: string, source: UploadSource, upload: UploadOptions = {}): Promise<T.ConfirmImageResult> {
      return uploadWhole(assetId, source, upload, {
        issue: (name, write) => client.createImageUploadUrl(assetId, name, write),
        confirm: (issued, _size, write) => client.confirmImage(assetId, issued.public_url, write),
      });
    },
  };
  return client;
}

export type MarketKitClient = ReturnType<typeof createClient>;
