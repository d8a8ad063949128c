export * from './assets.js';
export * from './batch.js';
export * from './categories.js';
export * from './profile.js';
export * from './submit.js';
export * from './tokens.js';
export * from './uploads.js';
export { arrangeImages } from './image-order.js';
export * from './webhooks.js';
export * from './versions.js';
export * from './version-files.js';
export { checkHealth, type HealthReport } from './health.js';
export type { AnyOperation, Caller, Operation, OperationContext, Ports, Settings } from './context.js';
export type { HttpMethod, RestBinding, ToolAnnotations, ToolDeclaration } from './declaration.js';

import type { AnyOperation } from './context.js';
import { assetOperations } from './assets.js';
import { batchOperations } from './batch.js';
import { categoryOperations } from './categories.js';
import { profileOperations } from './profile.js';
import { submitOperations } from './submit.js';
import { tokenOperations } from './tokens.js';
import { uploadOperations } from './uploads.js';
import { webhookOperations } from './webhooks.js';
import { versionOperations } from './versions.js';

/**
 * Every operation of the developer API, family by family: REST's routes, MCP's tools, the OpenAPI
 * document and the typed client are derived from their declarations (core/operations/declaration.ts).
 * A new operation in one of these files joins its family's list there; a new family joins here.
 */
export const developerOperations: readonly AnyOperation[] = [
  ...profileOperations,
  ...categoryOperations,
  ...assetOperations,
  ...batchOperations,
  ...uploadOperations,
  ...submitOperations,
  ...versionOperations,
  ...tokenOperations,
  ...webhookOperations,
];
