import type { TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '../errors.js';
import { statusesAllowing } from '../domain/asset-states.js';
import { blobRoutePrefix } from '../operations/blob-urls.js';
import { apiBase, restRoutes, type RestRoute } from './routes.js';
import { ErrorBodySchema } from '../schemas/common.js';
import { errorResponses, schemaRegistry } from './openapi-parts.js';

export { errorResponses, schemaRegistry } from './openapi-parts.js';
import { HealthSchema } from '../schemas/health.js';
import { examples } from './examples.js';
import { JwksSchema, SessionSchema } from './auth-routes.js';
import { defaultUploadLimits, formatSize, type UploadLimits } from '../uploads/limits.js';

/**
 * The OpenAPI 3.1 document of the REST API, generated from the route table and the same TypeBox
 * schemas that validate requests, so that it cannot drift from what the server does.
 */
export const openApiVersion = '1.0.0';

/** Codes every authenticated operation can answer with, whatever it does (503: the storage cannot be reached). */
const everyAuthenticated: ErrorCode[] = ['UNAUTHORIZED', 'FORBIDDEN', 'INVALID_INPUT', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];
/** And every one that reads a JSON body. */
const everyBody: ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'];

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

const rateLimitHeaders = {
  'RateLimit-Limit': { description: 'Requests allowed in the window.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
};

function successStatuses(route: RestRoute): number[] {
  if (typeof route.status === 'number') return [route.status];
  if (typeof route.status === 'function') return route.successStatuses ?? [];
  return [200];
}

/** The document for a site URL (`servers` points at `{siteUrl}/api/v1`). */
/** The blob path of signed upload URLs and image URLs: several segments, whose slashes a client may encode. */
const blobPathParameter = {
  name: 'path',
  in: 'path',
  required: true,
  description: 'The storage path, as in signed_url or public_url (assets/{id}/files/...); its slashes may be sent as they are or encoded as %2F.',
  schema: { type: 'string' },
};

export function generateOpenApi(siteUrl: string, limits: UploadLimits = defaultUploadLimits): Json {
  const { components, convert } = schemaRegistry();
  convert(ErrorBodySchema);
  const paths: Record<string, Record<string, Json>> = {};
  const add = (path: string, method: string, operation: Json) => {
    (paths[path] ??= {})[method.toLowerCase()] = operation;
  };

  add('/health', 'GET', {
    operationId: 'getHealth',
    summary: 'Whether the platform and its stores answer',
    tags: ['Health'],
    security: [],
    responses: {
      '200': { description: 'Healthy.', content: { 'application/json': { schema: convert(HealthSchema) } } },
      '503': { description: 'Degraded: a store does not answer (named in checks).', content: { 'application/json': { schema: convert(HealthSchema) } } },
    },
  });

  for (const route of restRoutes) {
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
    add(openApiPath(route), route.method, {
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
    });
  }

  add(`${blobRoutePrefix.slice(apiBase.length)}{path}`, 'PUT', {
    operationId: 'uploadToSignedUrl',
    summary: 'PUT the bytes of a file or image to a signed upload URL',
    description:
      'Use the signed_url exactly as upload-url returned it: no Authorization header, the file’s Content-Type as the body type. ' +
      'Expired, altered or reused-for-another-path URLs are 403; bodies over the limit are 413 and nothing is kept.',
    tags: ['Uploads'],
    security: [],
    parameters: [
      blobPathParameter,
      { name: 'expires', in: 'query', required: true, schema: { type: 'integer' } },
      { name: 'max', in: 'query', required: true, schema: { type: 'integer' } },
      { name: 'signature', in: 'query', required: true, schema: { type: 'string' } },
    ],
    requestBody: { required: true, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
    responses: {
      '200': {
        description: 'Stored.',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              additionalProperties: false,
              required: ['success', 'storage_path', 'size', 'content_type'],
              properties: { success: { const: true }, storage_path: { type: 'string' }, size: { type: 'integer' }, content_type: { type: 'string' } },
            },
          },
        },
      },
      ...errorResponses(['FORBIDDEN', 'NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'URI_TOO_LONG', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']),
    },
  });

  add(`${blobRoutePrefix.slice(apiBase.length)}{path}`, 'GET', {
    operationId: 'getImage',
    summary: 'A confirmed gallery image, public',
    description:
      'What public_url names: a confirmed image of an existing listing, whatever its status or visibility, with the content type ' +
      'its bytes have, `x-content-type-options: nosniff` and a `default-src \'none\'` content security policy. On a blob store that ' +
      'serves reads itself (S3) the answer is 302 to a short-lived signed URL there. Anything else (an upload not confirmed, a ' +
      'listing file, a deleted listing) is 404. No Authorization.',
    tags: ['Uploads'],
    security: [],
    parameters: [blobPathParameter],
    responses: {
      '200': {
        description: 'The image.',
        content: Object.fromEntries(['image/webp', 'image/png', 'image/jpeg'].map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])),
      },
      '302': { description: 'The image, at a short-lived signed URL of the blob store.', headers: { Location: { description: 'The signed URL.', schema: { type: 'string' } } } },
      ...errorResponses(['NOT_FOUND', 'URI_TOO_LONG', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE']),
    },
  });

  add('/auth/session', 'POST', {
    operationId: 'createSession',
    summary: 'Exchange a developer token for a short-lived session JWT',
    description:
      'For the local MCP process and other long-running clients. The session holds exactly the token’s scopes, lasts an hour ' +
      '(less if the token expires sooner) and stops working when the token is revoked. Only a developer token can be ' +
      'exchanged: a session sent here is 403. No body.',
    tags: ['Auth'],
    security: [{ bearerAuth: [] }],
    responses: {
      '200': { description: 'The session.', headers: rateLimitHeaders, content: { 'application/json': { schema: convert(SessionSchema) } } },
      ...errorResponses([...everyAuthenticated, ...everyBody]),
    },
  });
  add('/.well-known/jwks.json', 'GET', {
    operationId: 'getJwks',
    summary: 'The public keys that verify exchanged sessions',
    tags: ['Auth'],
    security: [],
    responses: { '200': { description: 'A JSON Web Key Set.', content: { 'application/json': { schema: convert(JwksSchema) } } } },
  });

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

function successDescription(status: number): string {
  return ({ 200: 'OK.', 201: 'Created.', 207: 'Per-item results: some or all items succeeded.', 422: 'Every item failed (code BATCH_FAILED); per-item results.' } as Record<number, string>)[status] ?? 'OK.';
}
