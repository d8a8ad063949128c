import type { TSchema } from '@sinclair/typebox';
import { errorCatalogue, statusOf, type ErrorCode } from '../errors.js';
import { publishedNode } from '../schemas/common.js';
import type { Method } from '../pipeline/router.js';

/** The pieces the REST and admin OpenAPI documents share (core/http/openapi.ts, core/admin/openapi.ts). */
type Json = Record<string, unknown>;

/** A TypeBox schema as it goes into a document: named shapes become references to components. */
export type Convert = (schema: TSchema) => Json;

/**
 * A route of /api/v1 that is no operation (health, the signed-URL PUT, the image GET, the session
 * exchange, the keys): where it is served and its entry in the OpenAPI document, declared together
 * beside its handler, so the document lists every route the surface serves and writes none itself.
 */
export interface DocumentedRoute {
  method: Method;
  /** Under /api/v1, with `:name` parameters (`:path+` for several segments). */
  path: string;
  /** Its OpenAPI operation object (operationId, summary, parameters, responses). */
  openApi(convert: Convert): Json;
}

/** Codes every authenticated operation can answer with, whatever it does (503: the storage cannot be reached). */
export const everyAuthenticated: ErrorCode[] = ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_INPUT', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];
/** And every one that reads a JSON body. */
export const everyBody: ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

export const rateLimitHeaders = {
  'RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
};

/**
 * A TypeBox schema as plain JSON Schema. Subschemas with an `$id` go to components and are
 * referenced, so each named shape is described once.
 */
export function schemaRegistry() {
  const components: Record<string, Json> = {};
  function convert(schema: unknown): unknown {
    if (Array.isArray(schema)) return schema.map(convert);
    if (schema === null || typeof schema !== 'object') return schema;
    const { $id, ...rest } = publishedNode(schema) as Json;
    const plain: Json = {};
    // Object.entries skips TypeBox's symbol keys, which are not JSON Schema.
    for (const [key, value] of Object.entries(rest)) plain[key] = convert(value);
    if (typeof $id !== 'string') return plain;
    components[$id] ??= plain;
    return { $ref: `#/components/schemas/${$id}` };
  }
  return { components, convert: (schema: TSchema) => convert(schema) as Json };
}

export function errorResponses(codes: readonly ErrorCode[], exclude: number[] = []) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = errorCatalogue[code];
    if (exclude.includes(status)) continue;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].sort(([a], [b]) => a - b).map(([status, list]) => [
      String(status),
      {
        description: list.map((code) => `\`${code}\`: ${errorCatalogue[code].message}`).join(' '),
        ...(status === statusOf('UNAUTHORIZED') ? { headers: { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } } } } : {}),
        ...(status === statusOf('RATE_LIMITED') || status === statusOf('SERVICE_UNAVAILABLE') || list.includes('IDEMPOTENCY_KEY_IN_USE')
          ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } }
          : {}),
        ...(status === statusOf('METHOD_NOT_ALLOWED') ? { headers: { Allow: { schema: { type: 'string' } } } } : {}),
        content: {
          'application/json': {
            schema: {
              allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { code: { enum: list } } }],
            },
          },
        },
      },
    ]),
  );
}

/** Codes of a write sent with an Idempotency-Key (core/pipeline/idempotency.ts). */
