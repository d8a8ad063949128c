/**
 * The typed client's methods derived from the declarations: `client.operations.<name>(input)` for
 * every operation of the REST API's OpenAPI document that is reached by a path (the developer
 * operations, Creator Studio's, health, the session exchange, the keys), sent as its REST request
 * (client/operations.ts, generated from the same declarations). A new operation is a method here
 * with nothing written by hand. The two reached at a URL an answer gives are in url-operations.ts.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type * as declared from '../core/operations/index.js';
import type { SendOptions } from './http.js';
import { operationRoutes } from './operations.js';
import type * as T from './types.js';

/** The name of an operation the client calls by its path: `getAsset`, `createAsset`, `listProjects`. */
export type OperationName = keyof typeof operationRoutes;

/** The routes that are no operation, typed by the schemas their OpenAPI entries use; none takes input. */
interface DocumentedShapes {
  getHealth: { input: Record<string, never>; output: T.Health };
  createSession: { input: Record<string, never>; output: T.Session };
  getJwks: { input: Record<string, never>; output: T.Jwks };
}

/**
 * Creator Studio's operations are made from its resource table at run time (core/studio/), so their
 * schemas carry no static shape: their input and result are plain objects (docs/studio.md has them).
 */
type StudioRecord = Record<string, unknown>;

type Declared<K> = K extends keyof typeof declared ? ((typeof declared)[K] extends { input: TSchema; output: TSchema } ? (typeof declared)[K] : never) : never;

/** An operation's whole input, path parameters included (`asset_id`), as its schema says. */
export type OperationInput<K extends OperationName> = K extends keyof DocumentedShapes
  ? DocumentedShapes[K]['input']
  : [Declared<K>] extends [never]
    ? StudioRecord
    : Static<Declared<K>['input']>;
/** What an operation answers, as its output schema says. */
export type OperationOutput<K extends OperationName> = K extends keyof DocumentedShapes
  ? DocumentedShapes[K]['output']
  : [Declared<K>] extends [never]
    ? StudioRecord
    : Static<Declared<K>['output']>;

/** A call's options: the write's idempotency key (writes only) and a signal. */
export interface CallOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}

type Send = <R>(method: string, path: string, options?: SendOptions) => Promise<R>;

export type OperationMethods = {
  [K in OperationName]: {} extends OperationInput<K>
    ? (input?: OperationInput<K>, options?: CallOptions) => Promise<OperationOutput<K>>
    : (input: OperationInput<K>, options?: CallOptions) => Promise<OperationOutput<K>>;
};

interface Route {
  method: string;
  path: string;
  params?: Record<string, string>;
  query?: true;
  body?: true;
  authenticated?: false;
  resultStatuses?: readonly number[];
}

/**
 * One request for a call: path parameters from their fields, the rest as the query (GET, DELETE,
 * query routes) or the JSON body. A write whose declaration takes no body sends none, unless fields
 * are left over, which then go as the body for the server to name as unknown.
 */
function call(send: Send, route: Route, input: Record<string, unknown> = {}, options: CallOptions = {}): Promise<unknown> {
  const rest = { ...input };
  let path = route.path;
  for (const [param, field] of Object.entries(route.params ?? {})) {
    path = path.replace(`:${param}`, encodeURIComponent(String(rest[field])));
    delete rest[field];
  }
  const inQuery = route.query || route.method === 'GET' || route.method === 'DELETE';
  const hasBody = !inQuery && (route.body || Object.keys(rest).length > 0);
  return send(route.method, path, {
    ...(inQuery ? { query: rest as SendOptions['query'] } : hasBody ? { body: rest } : {}),
    ...(route.resultStatuses ? { resultStatuses: [...route.resultStatuses] } : {}),
    ...(route.authenticated === false ? { authenticated: false } : {}),
    ...options,
  });
}

export function operationMethods(send: Send): OperationMethods {
  const routes = operationRoutes as Record<string, Route>;
  return Object.fromEntries(
    Object.entries(routes).map(([name, route]) => [name, (input?: Record<string, unknown>, options?: CallOptions) => call(send, route, input, options)]),
  ) as unknown as OperationMethods;
}
