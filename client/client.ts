/**
 * The typed REST client: one method per endpoint of /api/v1, and `uploadFile` / `uploadImage`,
 * which run upload-url, the streamed PUT and the confirmation in one call. Fetch-based and free of
 * runtime APIs, so it runs on Node, Bun, Deno and in browsers.
 */
import { createTransport, type ClientOptions } from './http.js';
import { prepareSource, putToSignedUrl, type UploadProgress, type UploadSource } from './upload.js';
import type * as T from './types.js';

export interface UploadOptions {
  /** The file name the server records; default the source's own name (a File, fileSource). */
  filename?: string;
  /** Default: from the file name's extension (zip, webp, png, jpg), else application/octet-stream. */
  contentType?: string;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

const contentTypes: Record<string, string> = {
  zip: 'application/zip',
  webp: 'image/webp',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  json: 'application/json',
  txt: 'text/plain',
};

export function contentTypeOf(filename: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase();
  return (extension && contentTypes[extension]) ?? 'application/octet-stream';
}

const asset = (id: string) => `/assets/${encodeURIComponent(id)}`;

export function createClient(options: ClientOptions) {
  const transport = createTransport(options);
  const { send } = transport;

  function nameOf(prepared: { name: string | undefined }, given: string | undefined): string {
    const name = given ?? prepared.name;
    if (!name) throw new TypeError('marketkit/client: name the file (options.filename): the source has no name of its own.');
    return name.split(/[\\/]/).pop()!;
  }

  const client = {
    /** The API base every call goes to (`https://market.example/api/v1`). */
    api: transport.api,

    /**
     * Any request under the API base (`/studio/projects`), with the client's credential, retries
     * and errors: for endpoints this client has no method for. Resolves with the JSON body.
     */
    request: <R = unknown>(method: string, path: string, options: { query?: Record<string, string | number | undefined>; body?: unknown } = {}) =>
      send<R>(method, path, options),

    /** GET /health: the report whether the platform is ok (200) or degraded (503); needs no token. */
    health: (signal?: AbortSignal) => send<T.Health>('GET', '/health', { authenticated: false, resultStatuses: [503], ...(signal ? { signal } : {}) }),

    /** POST /auth/session: a developer token exchanged for a session JWT (see `exchangedSession`). */
    createSession: () => send<T.Session>('POST', '/auth/session', { body: {} }),

    getProfile: () => send<T.Profile>('GET', '/me'),
    updateProfile: (body: T.ProfileUpdateBody) => send<T.Profile>('PATCH', '/me', { body }),
    listCategories: () => send<T.CategoryList>('GET', '/categories'),

    listAssets: (query: T.AssetListQuery = {}) => send<T.AssetList>('GET', '/assets', { query }),
    /** Every listing (optionally of one status), page after page. */
    async *allAssets(query: Omit<T.AssetListQuery, 'offset'> = {}): AsyncGenerator<T.Asset> {
      for (let offset = 0; ; ) {
        const page = await client.listAssets({ ...query, limit: query.limit ?? 100, offset });
        yield* page.data;
        if (!page.pagination.has_more) return;
        offset += page.data.length;
      }
    },
    createAsset: (body: T.AssetCreateBody) => send<T.Asset>('POST', '/assets', { body }),
    /** POST /assets/batch: the per-item results, whether some were created (207) or none (422, `code: 'BATCH_FAILED'`). */
    createAssets: (assets: T.AssetCreateBody[]) => send<T.BatchResult>('POST', '/assets/batch', { body: { assets }, resultStatuses: [422] }),
    getAsset: (id: string) => send<T.AssetDetail>('GET', asset(id)),
    updateAsset: (id: string, body: T.AssetUpdateBody) => send<T.Asset>('PATCH', asset(id), { body }),
    deleteAsset: (id: string) => send<T.DeleteAssetResult>('DELETE', asset(id)),
    submitAsset: (id: string) => send<T.SubmitResult>('POST', `${asset(id)}/submit`),

    createUploadUrl: (id: string, filename: string) => send<T.UploadUrl>('POST', `${asset(id)}/upload-url`, { body: { filename } }),
    confirmFile: (id: string, body: { storage_path: string; file_size: number }) => send<T.ConfirmFileResult>('POST', `${asset(id)}/confirm-file`, { body }),
    createImageUploadUrl: (id: string, filename: string) => send<T.ImageUploadUrl>('POST', `${asset(id)}/images/upload-url`, { body: { filename } }),
    confirmImage: (id: string, publicUrl: string) => send<T.ConfirmImageResult>('POST', `${asset(id)}/confirm-image`, { body: { public_url: publicUrl } }),

    listTokens: () => send<T.TokenList>('GET', '/tokens'),
    revokeToken: (id: string) => send<T.RevokeTokenResult>('DELETE', '/tokens', { query: { id } }),

    /**
     * The listing's file in one call: upload-url, the PUT of the bytes (streamed, with progress),
     * confirm-file with the bytes sent. A new file replaces the previous one.
     */
    async uploadFile(assetId: string, source: UploadSource, upload: UploadOptions = {}): Promise<T.ConfirmFileResult> {
      const prepared = prepareSource(source);
      const filename = nameOf(prepared, upload.filename);
      const issued = await client.createUploadUrl(assetId, filename);
      const fileSize = await putToSignedUrl(transport, issued.signed_url, prepared, {
        contentType: upload.contentType ?? prepared.type ?? contentTypeOf(filename),
        ...(upload.onProgress ? { onProgress: upload.onProgress } : {}),
        ...(upload.signal ? { signal: upload.signal } : {}),
      });
      return client.confirmFile(assetId, { storage_path: issued.storage_path, file_size: fileSize });
    },

    /** A gallery image in one call: images/upload-url, the PUT, confirm-image. The first image is the primary one. */
    async uploadImage(assetId: string, source: UploadSource, upload: UploadOptions = {}): Promise<T.ConfirmImageResult> {
      const prepared = prepareSource(source);
      const filename = nameOf(prepared, upload.filename);
      const issued = await client.createImageUploadUrl(assetId, filename);
      await putToSignedUrl(transport, issued.signed_url, prepared, {
        contentType: upload.contentType ?? prepared.type ?? contentTypeOf(filename),
        ...(upload.onProgress ? { onProgress: upload.onProgress } : {}),
        ...(upload.signal ? { signal: upload.signal } : {}),
      });
      return client.confirmImage(assetId, issued.public_url);
    },
  };
  return client;
}

export type MarketKitClient = ReturnType<typeof createClient>;
