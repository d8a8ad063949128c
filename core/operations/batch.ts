import { errorCatalogue, isApiError, statusOf } from '../errors.js';
import { AssetCreateBody, BatchCreateBody, BatchResultSchema, type BatchResult } from '../schemas/asset.js';
import { validate } from '../validation.js';
import { requireActiveSeller } from './asset-rules.js';
import { insertAsset, newAssetRecord } from './assets.js';
import { defineOperation } from './context.js';
import { assetView } from '../views.js';

export const createAssetBatch = defineOperation({
  name: 'createAssetBatch',
  rest: {
    method: 'POST',
    path: '/assets/batch',
    status: (result: { code?: string }) => (result.code ? statusOf('BATCH_FAILED') : 207),
    successStatuses: [207, statusOf('BATCH_FAILED')],
    tag: 'Assets',
  },
  summary: 'Create up to 25 listings, each on its own',
  description:
    'Each item is validated and created independently, in order: two items with one slug give the later one 409. ' +
    '207 with per-item results; 422 BATCH_FAILED when every item failed.',
  scope: 'assets:write',
  errors: ['NOT_A_SELLER', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireActiveSeller,
  input: BatchCreateBody,
  output: BatchResultSchema,
  async run(ctx, input): Promise<BatchResult> {
    const results: BatchResult['results'] = [];
    for (const [index, item] of input.assets.entries()) {
      try {
        const body = validate(AssetCreateBody, item, `assets[${index}]`);
        const asset = await insertAsset(ctx, await newAssetRecord(ctx, body));
        results.push({ index, status: 201, asset: assetView(asset) });
      } catch (error) {
        if (!isApiError(error)) throw error;
        results.push({ index, status: error.status, error: error.toBody() });
      }
    }
    const succeeded = results.filter((result) => result.status === 201).length;
    const summary = { total: results.length, succeeded, failed: results.length - succeeded };
    if (succeeded > 0) return { results, summary };
    return { results, summary, error: errorCatalogue.BATCH_FAILED.message, code: 'BATCH_FAILED' };
  },
});

/** The family's operations, in the order REST lists them and MCP offers their tools. */
export const batchOperations = [createAssetBatch];
