/**
 * The typed client's methods derived from the operations' declarations: `client.operations.<name>(input)`
 * for every operation of the developer API, its input and result typed by the operation's own schemas
 * and sent as its REST request (client/operations.ts, generated from the same declarations). A new
 * operation is a method here with nothing written by hand.
 */
import type { Static } from '@sinclair/typebox';
import type * as declared from '../core/operations/index.js';
import type { SendOptions } from './http.js';
import { operationRoutes } from './operations.js';

/** The name of an operation the client can call: `getAsset`, `createAsset`. */
export type OperationName = keyof typeof operationRoutes;
type Declared<K extends OperationName> = (typeof declared)[K];

/** An operation's whole input, path parameters included (`asset_id`), as its schema says. */
export type OperationInput<K extends OperationName> = Static<Declared<K>['input']>;
/** What an operation answers, as its output schema says. */
export type OperationOutput<K extends OperationName> = Static<Declared<K>['output']>;

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
  resultStatuses?: readonly number[];
}

/** One request for a call: path parameters from their fields, the rest as the query (GET, DELETE, query routes) or the JSON body. */
function call(send: Send, route: Route, input: Record<string, unknown> = {}, options: CallOptions = {}): Promise<unknown> {
  const rest = { ...input };
  let path = route.path;
  for (const [param, field] of Object.entries(route.params ?? {})) {
    path = path.replace(`:${param}`, encodeURIComponent(String(rest[field])));
    delete rest[field];
  }
  const bodyless = route.query || route.method === 'GET' || route.method === 'DELETE';
  return send(route.method, path, {
    ...(bodyless ? { query: rest as SendOptions['query'] } : { body: rest }),
    ...(route.resultStatuses ? { resultStatuses: [...route.resultStatuses] } : {}),
    ...options,
  });
}

export function operationMethods(send: Send): OperationMethods {
  const routes = operationRoutes as Record<string, Route>;
  return Object.fromEntries(
    Object.entries(routes).map(([name, route]) => [name, (input?: Record<string, unknown>, options?: CallOptions) => call(send, route, input, options)]),
  ) as unknown as OperationMethods;
}
