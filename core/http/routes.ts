import type { AnyOperation } from '../operations/context.js';
import * as op from '../operations/index.js';
import { studioRoutes } from '../studio/routes.js';

import { createRouteTable } from '../pipeline/router.js';
import { apiBase, type RestRoute } from '../pipeline/route.js';

export type { Method } from '../pipeline/router.js';

export type { RestRoute } from '../pipeline/route.js';

const assetParam = { id: 'asset_id' };
const endpointParam = { id: 'endpoint_id' };

/** The REST API, one row per endpoint of the spec's section 4 (and GET /categories). */
export const restRoutes: readonly RestRoute[] = [
  { method: 'GET', path: '/me', operation: op.getProfile, tag: 'Profile' },
  { method: 'PATCH', path: '/me', operation: op.updateProfile, tag: 'Profile' },
  { method: 'GET', path: '/categories', operation: op.listCategories, tag: 'Categories' },
  { method: 'GET', path: '/assets', operation: op.listAssets, query: true, tag: 'Assets' },
  { method: 'POST', path: '/assets', operation: op.createAsset, status: 201, tag: 'Assets' },
  {
    method: 'POST',
    path: '/assets/batch',
    operation: op.createAssetBatch,
    status: (result: { code?: string }) => (result.code ? 422 : 207),
    successStatuses: [207, 422],
    tag: 'Assets',
  },
  { method: 'GET', path: '/assets/:id', operation: op.getAsset, params: assetParam, tag: 'Assets' },
  { method: 'PATCH', path: '/assets/:id', operation: op.updateAsset, params: assetParam, tag: 'Assets' },
  { method: 'DELETE', path: '/assets/:id', operation: op.deleteAsset, params: assetParam, tag: 'Assets' },
  { method: 'POST', path: '/assets/:id/upload-url', operation: op.createAssetUploadUrl, params: assetParam, tag: 'Uploads' },
  { method: 'POST', path: '/assets/:id/confirm-file', operation: op.confirmAssetFile, params: assetParam, tag: 'Uploads' },
  { method: 'POST', path: '/assets/:id/images/upload-url', operation: op.createImageUploadUrl, params: assetParam, tag: 'Uploads' },
  { method: 'POST', path: '/assets/:id/confirm-image', operation: op.confirmAssetImage, params: assetParam, status: 201, tag: 'Uploads' },
  { method: 'POST', path: '/assets/:id/submit', operation: op.submitAsset, params: assetParam, tag: 'Assets' },
  { method: 'GET', path: '/tokens', operation: op.listTokens, tag: 'Tokens' },
  { method: 'DELETE', path: '/tokens', operation: op.revokeToken, query: true, tag: 'Tokens' },
  // Webhooks, our extension (docs/webhooks.md).
  { method: 'GET', path: '/webhooks', operation: op.listWebhookEndpoints, tag: 'Webhooks' },
  { method: 'POST', path: '/webhooks', operation: op.createWebhookEndpoint, status: 201, tag: 'Webhooks' },
  { method: 'GET', path: '/webhooks/:id', operation: op.getWebhookEndpoint, params: endpointParam, tag: 'Webhooks' },
  { method: 'PATCH', path: '/webhooks/:id', operation: op.updateWebhookEndpoint, params: endpointParam, tag: 'Webhooks' },
  { method: 'DELETE', path: '/webhooks/:id', operation: op.deleteWebhookEndpoint, params: endpointParam, tag: 'Webhooks' },
  { method: 'POST', path: '/webhooks/:id/rotate-secret', operation: op.rotateWebhookSecret, params: endpointParam, tag: 'Webhooks' },
  { method: 'POST', path: '/webhooks/:id/test', operation: op.sendWebhookTest, params: endpointParam, status: 202, tag: 'Webhooks' },
  { method: 'GET', path: '/webhooks/:id/deliveries', operation: op.listWebhookDeliveries, params: endpointParam, query: true, tag: 'Webhooks' },
  {
    method: 'POST',
    path: '/webhooks/:id/deliveries/:delivery_id/redeliver',
    operation: op.redeliverWebhook,
    params: { ...endpointParam, delivery_id: 'delivery_id' },
    status: 202,
    tag: 'Webhooks',
  },
  // Creator Studio, our extension: derived from core/studio/resources.ts (docs/studio.md).
  ...studioRoutes,
];

export { apiBase } from '../pipeline/route.js';

const operationTable = createRouteTable(restRoutes.map((route) => ({ method: route.method, path: `${apiBase}${route.path}`, target: route.operation })));

/** The operation of the REST table a request reaches (`/api/v1/assets/x`), or null: for the testing kit's log and faults. */
export function operationAt(method: string, path: string): AnyOperation | null {
  const found = operationTable(method, path);
  return found.found ? found.target : null;
}

/** The route of the REST table that renders an operation. */
export function routeOf(operation: AnyOperation): RestRoute {
  const route = restRoutes.find((row) => row.operation === operation);
  if (!route) throw new Error(`The operation ${operation.name} has no row in core/http/routes.ts, so no tool can send it over REST.`);
  return route;
}
