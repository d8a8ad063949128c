import type { AnyOperation } from '../operations/context.js';
import type { RestBinding } from '../operations/declaration.js';

/** Where the REST API lives. */
export const apiBase = '/api/v1';

/** One REST endpoint: a path under /api/v1 that renders one operation (its `rest` binding, with the operation). */
export interface RestRoute extends RestBinding {
  operation: AnyOperation;
}
