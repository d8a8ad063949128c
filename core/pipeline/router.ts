/**
 * The one route matcher every surface uses (REST, admin, the test controls): a table of
 * `{ method, path, target }` rows matched through rou3's public API (a radix tree with a map of
 * static paths first). Paths take `:name` for one segment, `{name}` (the admin table's and
 * OpenAPI's spelling, the same) and `:name+` for the rest of the path. Trailing slashes are
 * ignored: `/me/` is `/me`.
 */
import { addRoute, createRouter, findRoute } from 'rou3';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

const methods: readonly Method[] = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'];

export interface RouteRow<T> {
  method: Method;
  path: string;
  target: T;
}

export type RouteMatch<T> =
  /** `route`: the row's path as a template in OpenAPI's spelling (`/api/v1/assets/{id}`), for metrics and traces. */
  | { found: true; target: T; params: Record<string, string>; route: string }
  /** The path exists under `allow` (405), or nowhere (an empty `allow`: 404). */
  | { found: false; allow: Method[] };

const noParams: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** rou3's spelling of a table path: `{name}` and `:name` are one segment, `:name+` the rest. */
function rou3Path(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1').replace(/:(\w+)\+$/, '**:$1');
}

/**
 * A matcher over `rows`, in table order (a static path wins over a parameter in the same place).
 * Parameters are given as sent (still percent-encoded): each surface decodes what it reads.
 */
export function createRouteTable<T>(rows: readonly RouteRow<T>[]): (method: string, path: string) => RouteMatch<T> {
  const router = createRouter<{ target: T; route: string }>();
  // The template in OpenAPI's spelling, whichever the table used: `/assets/{id}`, `/blobs/{path}`.
  for (const { method, path, target } of rows) addRoute(router, method, rou3Path(path), { target, route: path.replace(/:(\w+)\+?/g, '{$1}') });
  return function match(method, path) {
    let end = path.length;
    while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
    const bare = end === path.length ? path : path.slice(0, end);
    const found = findRoute(router, method, bare);
    if (found) return { found: true, target: found.data.target, params: found.params ?? noParams, route: found.data.route };
    const allow = methods.filter((other) => other !== method && findRoute(router, other, bare) !== undefined);
    return { found: false, allow };
  };
}
