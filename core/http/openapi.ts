import type { TSchema } from '@sinclair/typebox';
import { statusOf, type ErrorCode } from '../errors.js';
import { statusesAllowing } from '../domain/asset-states.js';
import { apiBase, restRoutes, type RestRoute } from './routes.js';
import { ErrorBodySchema } from '../schemas/common.js';
import { errorResponses, everyAuthenticated, everyBody, rateLimitHeaders, schemaRegistry, type DocumentedRoute } from './openapi-parts.js';

export { errorResponses, schemaRegistry } from './openapi-parts.js';
import { examples } from './examples.js';
import { jwksRoute, sessionRoute } from './auth-routes.js';
import { systemRoutes } from './system-routes.js';
import { defaultUploadLimits, formatSize, type UploadLimits } from '../uploads/limits.js';

/**
 * The OpenAPI 3.1 document of the REST API, generated from the route table (the operations'
 * declarations) and the same TypeBox schemas that validate requests, then the routes that are no
 * operation, each declared with its entry where it is served: so it cannot drift from what the
 * server does, and lists no route of its own.
 */
export const openApiVersion = '1.0.0';

type Json = Record<string, unknown>;

function openApiPath(route: Pick<RestRoute, 'path'>): string {
  return route.path.replace(/:(\w+)\+?/g, '{$1}');
}

const everyRetryableWrite: ErrorCode[] = ['IDEMPOTENCY_KEY_IN_USE', 'IDEMPOTENCY_KEY_REUSED'];

const idempotencyKeyParameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the write safe to retry: 1 to 255 printable ASCII characters (a UUID), new for each new request. For 24 hours, a ' +
    'request with the same key, method, path and body gets the first answer again (with `Idempotent-Replayed: true`) and ' +
    'runs nothing; the key on another request is 422 IDEMPOTENCY_KEY_REUSED; a retry while the first still runs is 409 ' +
    'IDEMPOTENCY_KEY_IN_USE. Answers of 400, 401, 403, 413, 415, 429 and 5xx are not kept: a retry runs again.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

const replayedHeader = {
  'Idempotent-Replayed': { description: 'Present, `true`, when this is the kept answer of an earlier request with the same Idempotency-Key.', schema: { type: 'string', const: 'true' } },
};

function successStatuses(route: RestRoute): number[] {
  if (typeof route.status === 'number') return [route.status];
  if (typeof route.status === 'function') return route.successStatuses ?? [];
  return [200];
}

/** The routes of /api/v1 that are no operation, in the order the document lists them after the operations. */
export const documentedRoutes: readonly DocumentedRoute[] = [...systemRoutes, sessionRoute, jwksRoute];

/** The document for a site URL (`servers` points at `{siteUrl}/api/v1`). */
export function generateOpenApi(siteUrl: string, limits: UploadLimits = defaultUploadLimits): Json {
  const { components, convert } = schemaRegistry();
  convert(ErrorBodySchema);
  const paths: Record<string, Record<string, Json>> = {};
  const add = (path: string, method: string, operation: Json) => {
    (paths[path] ??= {})[method.toLowerCase()] = operation;
  };

  for (const route of restRoutes) add(openApiPath(route), route.method, operationEntry(route, convert));

  // The routes that are no operation, each declared with its entry beside where it is served.
  for (const route of documentedRoutes) add(openApiPath(route), route.method, route.openApi(convert));

  return {
    openapi: '3.1.0',
    info: {
      title: 'Marketplace Developer API',
      version: openApiVersion,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'The REST API for sellers: profile, listings, the four-step signed-URL upload flow (upload-url, PUT, confirm-file, ' +
        'images, submit), moderation review submission and developer tokens. Every endpoint but /health takes ' +
        '`Authorization: Bearer <token>` (a developer token starting with smcp_, or a session JWT). Errors are ' +
        '`{ error, code }`. Listing states: ' +
        `submit needs ${statusesAllowing('submit').join(', ')}; delete needs ${statusesAllowing('delete').join(', ')}. ` +
        `Uploads on this server: a listing file up to ${formatSize(limits.maxFileBytes)}, a gallery image up to ${formatSize(limits.maxImageBytes)} (413 past it; docs/uploads.md).`,
      'x-upload-limits': { file_bytes: limits.maxFileBytes, image_bytes: limits.maxImageBytes },
    },
    servers: [{ url: `${siteUrl}${apiBase}` }],
    tags: [
      { name: 'Profile', description: "The caller's profile." },
      { name: 'Assets', description: 'Listings: create, read, change, delete, submit for review.' },
      { name: 'Uploads', description: 'The signed-URL upload flow for the listing file and gallery images.' },
      { name: 'Categories', description: 'Categories a listing can be filed under.' },
      { name: 'Tokens', description: "The caller's developer tokens." },
      { name: 'Auth', description: 'Sessions exchanged for developer tokens, and the keys that verify them.' },
      { name: 'Health', description: 'Platform health.' },
    ],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A developer token (smcp_...) or a session JWT. Scopes: profile:read, profile:write, assets:read, assets:write, tokens:read, tokens:revoke.',
        },
      },
    },
  };
}

/** The entry of one operation's route: its parameters, body, answers and errors, from the declaration. */
function operationEntry(route: RestRoute, convert: ReturnType<typeof schemaRegistry>['convert']): Json {
  const { operation } = route;
  const input = operation.input as TSchema & { properties: Record<string, TSchema>; required?: string[] };
  const pathFields = new Set(Object.values(route.params ?? {}));
  const parameters: Json[] = [];
  for (const [param, field] of Object.entries(route.params ?? {})) {
    parameters.push({ name: param, in: 'path', required: true, description: input.properties[field]?.description, schema: { type: 'string', format: 'uuid' } });
  }
  const bodyFields = Object.entries(input.properties).filter(([field]) => !pathFields.has(field));
  if (route.query) {
    for (const [name, schema] of bodyFields) {
      parameters.push({ name, in: 'query', required: input.required?.includes(name) ?? false, schema: convert(schema) });
    }
  }
  const takesBody = !route.query && bodyFields.length > 0 && route.method !== 'GET' && route.method !== 'DELETE';
  const required = (input.required ?? []).filter((field) => !pathFields.has(field));
  const bodySchema: Json = {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(bodyFields.map(([name, schema]) => [name, convert(schema)])),
    ...(required.length ? { required } : {}),
    ...(typeof input.minProperties === 'number' ? { minProperties: input.minProperties - pathFields.size } : {}),
  };
  const example = examples[operation.name as keyof typeof examples];
  const statuses = successStatuses(route);
  const output = convert(operation.output);
  const write = route.method !== 'GET';
  if (write) parameters.push(idempotencyKeyParameter);
  const codes: ErrorCode[] = [...everyAuthenticated, ...(takesBody ? everyBody : []), ...(write ? everyRetryableWrite : []), ...operation.errors];
  return {
    operationId: operation.name,
    summary: operation.summary,
    description: [operation.description, `Requires the scope \`${operation.scope}\`.`].filter(Boolean).join('\n\n'),
    tags: [route.tag],
    security: [{ bearerAuth: [operation.scope] }],
    'x-scopes': [operation.scope],
    ...(parameters.length ? { parameters } : {}),
    ...(takesBody
      ? {
          requestBody: {
            required: required.length > 0,
            content: { 'application/json': { schema: bodySchema, ...(example ? { example } : {}) } },
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(
        statuses.map((status) => [
          String(status),
          { description: successDescription(status), headers: write ? { ...rateLimitHeaders, ...replayedHeader } : rateLimitHeaders, content: { 'application/json': { schema: output } } },
        ]),
      ),
      ...errorResponses(codes, statuses),
    },
  };
}

function successDescription(status: number): string {
  return ({ 200: 'OK.', 201: 'Created.', 207: 'Per-item results: some or all items succeeded.', [statusOf('BATCH_FAILED')]: 'Every item failed (code BATCH_FAILED); per-item results.' } as Record<number, string>)[status] ?? 'OK.';
}
