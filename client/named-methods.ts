/**
 * The typed client's named methods, the API in its own words (`getAsset(id)`, `createUploadUrl(id,
 * filename)`): each is its operation of `client.operations` with positional arguments, so the method,
 * path and statuses are the declaration's (client/operations.ts) and none is spelled here. Their
 * result types are the wire types (types.ts), which the type-check holds to the operations' schemas.
 * docs/client.md lists them, and test/client/derived-operations.test.ts holds that list to this one.
 */
import type { OperationMethods } from './operation-methods.js';
import type * as T from './types.js';

/** Options of a write (every POST, PUT, PATCH and DELETE method). */
export interface WriteOptions {
  /**
   * The write's `Idempotency-Key`. By default the client makes a fresh one per call and sends it with
   * each retry, so that a retry after a lost answer does not write twice; give your own to keep that
   * guarantee across your own retries too (a job that restarts, a queue that redelivers).
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

const signalOnly = (signal: AbortSignal | undefined) => (signal ? { signal } : {});

export function namedMethods(ops: OperationMethods) {
  const methods = {
    /** GET /health: the report whether the platform is ok (200) or degraded (503); needs no token. */
    health: (signal?: AbortSignal): Promise<T.Health> => ops.getHealth({}, signalOnly(signal)),
    /** POST /auth/session: a developer token exchanged for a session JWT (see `exchangedSession`). */
    createSession: (): Promise<T.Session> => ops.createSession(),

    getProfile: (): Promise<T.Profile> => ops.getProfile(),
    updateProfile: (body: T.ProfileUpdateBody, write?: WriteOptions): Promise<T.Profile> => ops.updateProfile(body, write),
    listCategories: (): Promise<T.CategoryList> => ops.listCategories(),

    listAssets: (query: T.AssetListQuery = {}): Promise<T.AssetList> => ops.listAssets(query),
    /** How many listings the caller has in each status, and in all. */
    countAssets: (): Promise<T.AssetCounts> => ops.countAssets(),
    createAsset: (body: T.AssetCreateBody, write?: WriteOptions): Promise<T.Asset> => ops.createAsset(body, write),
    /** POST /assets/batch: the per-item results, whether some were created (207) or none (422, `code: 'BATCH_FAILED'`). */
    createAssets: (assets: T.AssetCreateBody[], write?: WriteOptions): Promise<T.BatchResult> => ops.createAssetBatch({ assets }, write),
    getAsset: (id: string): Promise<T.AssetDetail> => ops.getAsset({ asset_id: id }),
    updateAsset: (id: string, body: T.AssetUpdateBody, write?: WriteOptions): Promise<T.Asset> => ops.updateAsset({ ...body, asset_id: id }, write),
    deleteAsset: (id: string, write?: WriteOptions): Promise<T.DeleteAssetResult> => ops.deleteAsset({ asset_id: id }, write),
    submitAsset: (id: string, write?: WriteOptions): Promise<T.SubmitResult> => ops.submitAsset({ asset_id: id }, write),

    /** POST upload-url, with the file name, or the whole body (`{ filename, file_size }`). */
    createUploadUrl: (id: string, filename: string | T.UploadUrlBody, write?: WriteOptions): Promise<T.UploadUrl> =>
      ops.createAssetUploadUrl({ ...(typeof filename === 'string' ? { filename } : filename), asset_id: id }, write),
    confirmFile: (id: string, body: T.ConfirmFileBody, write?: WriteOptions): Promise<T.ConfirmFileResult> => ops.confirmAssetFile({ ...body, asset_id: id }, write),
    createImageUploadUrl: (id: string, filename: string, write?: WriteOptions): Promise<T.ImageUploadUrl> =>
      ops.createImageUploadUrl({ asset_id: id, filename }, write),
    confirmImage: (id: string, publicUrl: string, write?: WriteOptions): Promise<T.ConfirmImageResult> =>
      ops.confirmAssetImage({ asset_id: id, public_url: publicUrl }, write),
    /** PUT images/order: every image id of the listing once, in the new order; the first becomes the primary. */
    arrangeImages: (id: string, imageIds: string[], write?: WriteOptions): Promise<T.ArrangedImages> => ops.arrangeImages({ asset_id: id, image_ids: imageIds }, write),

    listTokens: (): Promise<T.TokenList> => ops.listTokens(),
    revokeToken: (id: string, write?: WriteOptions): Promise<T.RevokeTokenResult> => ops.revokeToken({ id }, write),

    listWebhookEndpoints: (): Promise<T.WebhookEndpointList> => ops.listWebhookEndpoints(),
    /** The only answer that shows the endpoint's signing secret (null in an idempotent replay): keep it. */
    createWebhookEndpoint: (body: T.WebhookCreateBody, write?: WriteOptions): Promise<T.WebhookEndpointWithSecret> => ops.createWebhookEndpoint(body, write),
    getWebhookEndpoint: (id: string): Promise<T.WebhookEndpoint> => ops.getWebhookEndpoint({ endpoint_id: id }),
    updateWebhookEndpoint: (id: string, changes: T.WebhookUpdateBody, write?: WriteOptions): Promise<T.WebhookEndpoint> =>
      ops.updateWebhookEndpoint({ ...changes, endpoint_id: id }, write),
    deleteWebhookEndpoint: (id: string, write?: WriteOptions): Promise<T.DeleteWebhookResult> => ops.deleteWebhookEndpoint({ endpoint_id: id }, write),
    /** A new secret, shown in this answer only; the previous one keeps signing beside it for 24 hours. */
    rotateWebhookSecret: (id: string, write?: WriteOptions): Promise<T.WebhookEndpointWithSecret> => ops.rotateWebhookSecret({ endpoint_id: id }, write),
    /** Queues a `webhook.test` event to this endpoint only; resolves with the queued delivery. */
    sendWebhookTest: (id: string, write?: WriteOptions): Promise<T.WebhookDelivery> => ops.sendWebhookTest({ endpoint_id: id }, write),
    listWebhookDeliveries: (id: string, query: T.WebhookDeliveryListQuery = {}): Promise<T.WebhookDeliveryList> =>
      ops.listWebhookDeliveries({ ...query, endpoint_id: id }),
    redeliverWebhook: (endpointId: string, deliveryId: string, write?: WriteOptions): Promise<T.WebhookDelivery> =>
      ops.redeliverWebhook({ endpoint_id: endpointId, delivery_id: deliveryId }, write),
  };

  return {
    ...methods,
    /** Every listing (optionally of one status), page after page by cursor: none skipped or repeated while others come and go. */
    async *allAssets(query: Omit<T.AssetListQuery, 'offset' | 'cursor'> = {}): AsyncGenerator<T.Asset> {
      for (let cursor: string | undefined; ; ) {
        const page = await methods.listAssets({ ...query, limit: query.limit ?? 100, ...(cursor ? { cursor } : {}) });
        yield* page.data;
        if (!page.pagination.next_cursor) return;
        cursor = page.pagination.next_cursor;
      }
    },
  };
}
