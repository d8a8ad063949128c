/**
 * What every surface with a route table does with a request before its target runs, once for all
 * of them (REST, admin, the testing kit's controls): the match or its refusal (404, or 405 with
 * Allow), path parameters decoded, and the query read as input fields.
 */
import type { TSchema } from '@sinclair/typebox';
import { ApiError, invalidInput } from '../errors.js';
import type { RouteMatch } from './router.js';

/**
 * The target a request reaches with its path parameters as sent, or the refusal: 404 where the
 * path is served under no method (with `notFound` as the message), 405 with `Allow` where it is
 * served under others. A surface decodes the parameters (decodeParam) where it reads them: REST
 * after authentication, so that a bad id without a token is still 401 first.
 */
export function routed<T>(found: RouteMatch<T>, path: string, notFound = 'No such endpoint.'): Extract<RouteMatch<T>, { found: true }> {
  if (!found.found) {
    if (found.allow.length === 0) {
      // `/assets//submit` is what a script sends when $ID is empty: say so.
      const hint = path.includes('//') ? ' The path has an empty segment (//): is a variable such as $ID in it unset?' : '';
      throw new ApiError('NOT_FOUND', `${notFound}${hint}`);
    }
    throw new ApiError('METHOD_NOT_ALLOWED', `Use ${found.allow.join(' or ')} here.`, { headers: { allow: found.allow.join(', ') } });
  }
  return found;
}

/** A path parameter as sent, decoded; bad percent-encoding is a path no route serves. */
export function decodeParam(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new ApiError('NOT_FOUND', 'No such endpoint.');
  }
}

/**
 * Query parameters as input fields, numbers coerced where the schema wants numbers. A parameter
 * given twice is refused (400 naming it): which of the two was meant cannot be known.
 */
export function queryInput(query: string, schema: TSchema | undefined): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const seen = new Set<string>();
  let params: URLSearchParams;
  try {
    // URLSearchParams replaces bad percent-encoding instead of throwing; check it first.
    decodeURIComponent(query.replace(/\+/g, ' '));
    params = new URLSearchParams(query);
  } catch {
    throw invalidInput('query', 'is not valid percent-encoding');
  }
  for (const [key, value] of params) {
    if (seen.has(key)) throw invalidInput(key, 'must be given once');
    seen.add(key);
    const type = (schema?.properties?.[key] as TSchema | undefined)?.type;
    const numeric = (type === 'integer' || type === 'number') && /^-?\d{1,15}$/.test(value);
    // defineProperty: a key such as __proto__ becomes a field (which validation then names), not the prototype.
    Object.defineProperty(input, key, { value: numeric ? Number(value) : value, enumerable: true, writable: true, configurable: true });
  }
  return input;
}
