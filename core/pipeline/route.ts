import type { AnyOperation } from '../operations/context.js';
import type { Method } from './router.js';

/** Where the REST API lives. */
export const apiBase = '/api/v1';

/** One REST endpoint: a path under /api/v1 that renders one operation. */
export interface RestRoute {
  method: Method;
  /** The path under `/api/v1`, with `:name` parameters: `/assets/:id`. */
  path: string;
  operation: AnyOperation;
  /** Path parameter -> input field of the operation. */
  params?: Record<string, string>;
  /** Whether the operation's input fields come from the query string (else from the JSON body). */
  query?: boolean;
  /** The success status; a function where it depends on the result. */
  status?: number | ((result: never) => number);
  /** With a status function: every status it can give, for the OpenAPI document. */
  successStatuses?: number[];
  tag: 'Profile' | 'Assets' | 'Uploads' | 'Tokens' | 'Categories' | 'Studio' | 'Webhooks';
}
