import type { TSchema } from '@sinclair/typebox';
import type { ErrorCode } from '../errors.js';
import { adminActions } from './actions.js';
import { adminPrefix } from './surface.js';
import { ErrorBodySchema } from '../schemas/common.js';
import { errorResponses, openApiVersion, schemaRegistry } from '../http/openapi.js';

type Json = Record<string, unknown>;

/** Every admin call can answer these, whatever it does. */
const everyAdmin: ErrorCode[] = ['UNAUTHORIZED', 'INVALID_INPUT', 'METHOD_NOT_ALLOWED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];

const camel = (name: string) => name.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());

/**
 * The OpenAPI 3.1 document of the admin surface (/api/admin), generated from the same action table
 * that serves it and that `marketkit admin` runs. Separate from the developer API's document: the
 * admin surface is the marketplace operator's, authorized by the service key only.
 */
export function generateAdminOpenApi(siteUrl: string): Json {
  const { components, convert } = schemaRegistry();
  convert(ErrorBodySchema);
  const paths: Record<string, Record<string, Json>> = {};
  for (const act of adminActions) {
    const parameters: Json[] = Object.entries(act.params ?? {}).map(([name, description]) => ({
      name,
      in: 'path',
      required: true,
      description,
      schema: { type: 'string' },
    }));
    const query = act.query as (TSchema & { properties: Record<string, TSchema> }) | undefined;
    for (const [name, schema] of Object.entries(query?.properties ?? {})) {
      parameters.push({ name, in: 'query', required: false, schema: convert(schema) });
    }
    const codes: ErrorCode[] = [...everyAdmin, ...(act.body ? (['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE'] as ErrorCode[]) : []), ...act.errors];
    (paths[act.path] ??= {})[act.method.toLowerCase()] = {
      operationId: camel(act.name),
      summary: act.summary,
      description: `CLI: \`marketkit admin ${act.name}\`.`,
      tags: [act.tag],
      ...(parameters.length ? { parameters } : {}),
      ...(act.body ? { requestBody: { required: true, content: { 'application/json': { schema: convert(act.body) } } } } : {}),
      responses: {
        '200': { description: 'OK.', content: { 'application/json': { schema: convert(act.response) } } },
        ...errorResponses(codes, [200]),
      },
    };
  }
  paths['/openapi.json'] = {
    get: {
      operationId: 'getAdminOpenApi',
      summary: 'This document',
      tags: ['Meta'],
      responses: { '200': { description: 'The OpenAPI document of the admin surface.', content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Marketplace Admin API',
      version: openApiVersion,
      description:
        'The marketplace operator’s surface: the moderation queue and decisions, the release of scheduled listings, ' +
        'accounts, categories and the tokens of an account. It exists only when a service key is configured, and ' +
        'every call needs `Authorization: Bearer <service key>`; developer tokens and session JWTs are refused. ' +
        'Every change is a POST. Each operation is also a `marketkit admin` command that works on the data directory.',
    },
    servers: [{ url: `${siteUrl}${adminPrefix}` }],
    security: [{ serviceKey: [] }],
    tags: [
      { name: 'Moderation', description: 'The review queue and the decisions on it.' },
      { name: 'Accounts', description: 'Seller state, restriction, suspension, payouts and plan.' },
      { name: 'Categories', description: 'The categories listings are filed under.' },
      { name: 'Tokens', description: 'The developer tokens of an account.' },
      { name: 'Meta', description: 'This document.' },
    ],
    paths,
    components: {
      schemas: components,
      securitySchemes: { serviceKey: { type: 'http', scheme: 'bearer', description: 'The service key (MARKETKIT_SERVICE_KEY).' } },
    },
  };
}
