/**
 * The typed REST client: `operations`, one method per operation of the OpenAPI document, derived
 * from the declarations; the named methods over them (named-methods.ts); and `uploadFile` /
 * `uploadImage`, which run upload-url, the streamed PUT and the confirmation in one call.
 * Fetch-based and free of runtime APIs, so it runs on Node, Bun, Deno and in browsers.
 */
import { createTransport, type ClientOptions } from './http.js';
import type { UploadSource } from './upload.js';
import type { RandomAccessSource } from './resumable.js';
import { memoryResumeStore } from './resumable-file.js';
import type * as T from './types.js';
import { namedMethods } from './named-methods.js';
import { operationMethods } from './operation-methods.js';
import { urlOperations } from './url-operations.js';
import { uploadFile, uploadImage, uploadVersionFile, type ClientUploads, type UploadOptions } from './upload-steps.js';

export { contentTypeOf } from './upload.js';
export type { WriteOptions } from './named-methods.js';
export type { UploadOptions } from './upload-steps.js';

export function createClient(options: ClientOptions) {
  const transport = createTransport(options);
  const { send } = transport;
  const operations = { ...operationMethods(send), ...urlOperations(transport) };
  const named = namedMethods(operations);
  const uploads: ClientUploads = { transport, steps: named, operations, resumeStore: memoryResumeStore() };
  return {
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

    ...named,

    /**
     * The listing's file in one call: upload-url, the PUT of the bytes (streamed, with progress),
     * confirm-file with the bytes sent. A new file replaces the previous one. A source the client
     * can read at any offset, from `resumableThreshold` on, goes up resumably (docs/client.md).
     */
    uploadFile: (assetId: string, source: UploadSource | RandomAccessSource, upload: UploadOptions = {}): Promise<T.ConfirmFileResult> => uploadFile(uploads, assetId, source, upload),

    /** A gallery image in one call: images/upload-url, the PUT, confirm-image. The first image is the primary one. */
    uploadImage: (assetId: string, source: UploadSource, upload: UploadOptions = {}): Promise<T.ConfirmImageResult> => uploadImage(uploads, assetId, source, upload),
    /**
     * A version's file in one call, as uploadFile is a listing's (resumable from the threshold on,
     * remembered under the version): the version's upload-url, the bytes, its confirm-file.
     */
    uploadVersionFile: (assetId: string, versionId: string, source: UploadSource | RandomAccessSource, upload: UploadOptions = {}): Promise<T.ConfirmFileResult> =>
      uploadVersionFile(uploads, assetId, versionId, source, upload),
  };
}

export type MarketKitClient = ReturnType<typeof createClient>;
