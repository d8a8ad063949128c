/**
 * The routes of /api/v1 the REST surface serves itself, outside the operations: health, the
 * signed-URL PUT and the image GET. Each is declared once, with its OpenAPI entry; core/http/handler.ts
 * routes them and serves them, core/http/openapi.ts lists them (core/http/openapi-parts.ts, DocumentedRoute).
 */
import { statusOf } from '../errors.js';
import { HealthSchema } from '../schemas/health.js';
import { errorResponses, type DocumentedRoute } from './openapi-parts.js';

/** The blob path of signed upload URLs and image URLs: several segments, whose slashes a client may encode. */
const blobPathParameter = {
  name: 'path',
  in: 'path',
  required: true,
  description: 'The storage path, as in signed_url or public_url (assets/{id}/files/...); its slashes may be sent as they are or encoded as %2F.',
  schema: { type: 'string' },
};

export const healthRoute: DocumentedRoute = {
  method: 'GET',
  path: '/health',
  openApi: (convert) => ({
    operationId: 'getHealth',
    summary: 'Whether the platform and its stores answer',
    tags: ['Health'],
    security: [],
    responses: {
      '200': { description: 'Healthy.', content: { 'application/json': { schema: convert(HealthSchema) } } },
      [statusOf('SERVICE_UNAVAILABLE')]: { description: 'Degraded: a store does not answer (named in checks).', content: { 'application/json': { schema: convert(HealthSchema) } } },
    },
  }),
};

export const blobPutRoute: DocumentedRoute = {
  method: 'PUT',
  path: '/blobs/:path+',
  openApi: () => ({
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
  }),
};

export const blobGetRoute: DocumentedRoute = {
  method: 'GET',
  path: '/blobs/:path+',
  openApi: () => ({
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
  }),
};

/** The three, in the order the document lists them. */
export const systemRoutes: readonly DocumentedRoute[] = [healthRoute, blobPutRoute, blobGetRoute];
