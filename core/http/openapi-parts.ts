import type { TSchema } from '@sinclair/typebox';
import { errorCatalogue, type ErrorCode } from '../errors.js';
import { publishedNode } from '../schemas/common.js';

/** The pieces the REST and admin OpenAPI documents share (core/http/openapi.ts, core/admin/openapi.ts). */
type Json = Record<string, unknown>;

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
        ...(status === 401 ? { headers: { 'WWW-Authenticate': { schema: { type: 'string', const: 'Bearer' } } } } : {}),
        ...(status === 429 || status === 503 || list.includes('IDEMPOTENCY_KEY_IN_USE')
          ? { headers: { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' } } } }
          : {}),
        ...(status === 405 ? { headers: { Allow: { schema: { type: 'string' } } } } : {}),
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
