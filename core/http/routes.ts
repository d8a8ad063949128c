import type { AnyOperation } from '../operations/context.js';
import { developerOperations } from '../operations/index.js';
import { studioRoutes } from '../studio/routes.js';

import { createRouteTable } from '../pipeline/router.js';
import { apiBase, type RestRoute } from '../pipeline/route.js';

export type { Method } from '../pipeline/router.js';

export type { RestRoute } from '../pipeline/route.js';

/**
 * The REST API: every developer operation's `rest` binding (its declaration, core/operations/),
 * then Creator Studio's routes, derived from core/studio/resources.ts (docs/studio.md).
 */
export const restRoutes: readonly RestRoute[] = [
  ...developerOperations.flatMap((operation) => (operation.rest ? [{ ...operation.rest, operation }] : [])),
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
  if (!route) throw new Error(`The operation ${operation.name} has no rest binding in its declaration, so no tool can send it over REST.`);
  return route;
}
