/**
 * The one route matcher every surface uses (REST, admin, the test controls): a table of
 * `{ method, path, target }` rows matched segment by segment over a tree of the table's paths,
 * with a map of the paths without parameters first. Paths take `:name` for one segment, `{name}`
 * (the admin table's and OpenAPI's spelling, the same) and `:name+` for the rest of the path. A
 * static segment wins over a parameter in the same place, a parameter over the rest of the path;
 * neither matches an empty segment. Trailing slashes are ignored: `/me/` is `/me`.
 *
 * Its own code rather than a router library's, so that a request walks the path by index and
 * makes no array of segments: splitting a path that holds a new id on every request is a fifth of
 * the frame's own time when each GET reads another listing (docs/performance.md, "The route
 * matcher").
 */

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

/** A row's answer: its target, its template and the names of its parameters in path order. */
interface Leaf<T> {
  target: T;
  route: string;
  names: string[];
}

interface TreeNode<T> {
  statics: Map<string, TreeNode<T>> | null;
  param: TreeNode<T> | null;
  /** `:name+`: the rest of the path, one segment or more, by method. */
  rest: Map<string, Leaf<T>> | null;
  leaves: Map<string, Leaf<T>> | null;
}

const emptySegment = /^\/|\/\//;

const newNode = <T>(): TreeNode<T> => ({ statics: null, param: null, rest: null, leaves: null });

/** The end of the segment that starts at `from`: the next `/`, or the end of the path. */
const segmentEnd = (path: string, from: number, end: number): number => {
  const slash = path.indexOf('/', from);
  return slash === -1 || slash > end ? end : slash;
};

/**
 * A matcher over `rows` (a row whose method and path repeat an earlier one is ignored: the first
 * wins). Parameters are given as sent (still percent-encoded): each surface decodes what it reads.
 */
export function createRouteTable<T>(rows: readonly RouteRow<T>[]): (method: string, path: string) => RouteMatch<T> {
  const root = newNode<T>();
  const exact = new Map<string, Map<string, Leaf<T>>>();
  for (const { method, path, target } of rows) {
    const segments = path.split('/').slice(1);
    const names: string[] = [];
    const leaf: Leaf<T> = { target, route: path.replace(/:(\w+)\+?/g, '{$1}'), names };
    let node = root;
    let rest = false;
    for (const [index, segment] of segments.entries()) {
      const name = /^:(\w+)(\+?)$/.exec(segment) ?? /^\{(\w+)\}()$/.exec(segment);
      if (name?.[2] === '+') {
        if (index !== segments.length - 1) throw new Error(`createRouteTable: ${path}: a rest parameter (:${name[1]}+) ends the path`);
        names.push(name[1]!);
        rest = true;
      } else if (name) {
        names.push(name[1]!);
        node = node.param ??= newNode<T>();
      } else {
        node.statics ??= new Map();
        let next = node.statics.get(segment);
        if (!next) node.statics.set(segment, (next = newNode<T>()));
        node = next;
      }
    }
    const byMethod = rest ? (node.rest ??= new Map()) : (node.leaves ??= new Map());
    if (!byMethod.has(method)) byMethod.set(method, leaf);
    if (names.length === 0) {
      let paths = exact.get(path);
      if (!paths) exact.set(path, (paths = new Map()));
      if (!paths.has(method)) paths.set(method, leaf);
    }
  }

  /** The leaf for `method` under `node` for the path from `from` to `end`, the parameters' values pushed on `values`. */
  const walk = (node: TreeNode<T>, method: string, path: string, from: number, end: number, values: string[]): Leaf<T> | undefined => {
    if (from > end) return node.leaves?.get(method);
    const stop = segmentEnd(path, from, end);
    const next = stop + 1;
    const child = node.statics?.get(path.slice(from, stop));
    if (child) {
      const found = walk(child, method, path, next, end, values);
      if (found) return found;
    }
    if (stop > from && node.param) {
      values.push(path.slice(from, stop));
      const found = walk(node.param, method, path, next, end, values);
      if (found) return found;
      values.pop();
    }
    const rest = node.rest?.get(method);
    // The rest of the path, one segment or more and none of them empty.
    if (rest && end > from && !emptySegment.test(path.slice(from, end))) {
      values.push(path.slice(from, end));
      return rest;
    }
    return undefined;
  };

  const find = (method: string, path: string): { leaf: Leaf<T>; values: string[] } | undefined => {
    const values: string[] = [];
    // The path's first character is its `/`: the first segment starts after it.
    const leaf = walk(root, method, path, 1, path.length, values);
    return leaf && { leaf, values };
  };

  return function match(method, path) {
    let end = path.length;
    while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
    const bare = end === path.length ? path : path.slice(0, end);
    const paths = exact.get(bare);
    const exactLeaf = paths?.get(method);
    if (exactLeaf) return { found: true, target: exactLeaf.target, params: noParams, route: exactLeaf.route };
    const found = find(method, bare);
    if (found) {
      const { leaf, values } = found;
      const params: Record<string, string> = {};
      for (let i = 0; i < leaf.names.length; i++) params[leaf.names[i]!] = values[i]!;
      return { found: true, target: leaf.target, params: leaf.names.length === 0 ? noParams : params, route: leaf.route };
    }
    const allow = methods.filter((other) => other !== method && (paths?.has(other) || find(other, bare) !== undefined));
    return { found: false, allow };
  };
}
