import { Type } from '@sinclair/typebox';
import { authenticateAndTake, type AuthPorts } from '../auth/authenticate.js';
import type { SessionKeys } from '../auth/session-keys.js';
import { ApiError, isApiError } from '../errors.js';
import type { Caller } from '../operations/context.js';
import { Strict } from '../schemas/common.js';
import { validate } from '../validation.js';
import { readJsonBody } from '../pipeline/body.js';
import { jsonResponse, type CoreRequest, type CoreResponse, type RouteHandler } from '../pipeline/request.js';
import type { Method } from './routes.js';
import { errorResponses, everyAuthenticated, everyBody, rateLimitHeaders, type DocumentedRoute } from './openapi-parts.js';

export const SessionSchema = Strict(
  {
    access_token: Type.String({ description: 'A session JWT: send it as Authorization: Bearer <access_token>.' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ minimum: 0, description: 'Seconds until it expires (3600, or less when the developer token expires sooner).' }),
    scope: Type.String({ description: "The developer token's scopes, space-separated: an exchange never widens access." }),
  },
  { $id: 'Session' },
);

export const JwksSchema = Strict({ keys: Type.Array(Type.Object({ kty: Type.String(), kid: Type.String() })) }, { $id: 'Jwks' });

/** POST /auth/session, declared with its OpenAPI entry (served by authRoutes). */
export const sessionRoute: DocumentedRoute = {
  method: 'POST',
  path: '/auth/session',
  openApi: (convert) => ({
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
  }),
};

/** GET /.well-known/jwks.json, declared with its OpenAPI entry (served by authRoutes). */
export const jwksRoute: DocumentedRoute = {
  method: 'GET',
  path: '/.well-known/jwks.json',
  openApi: (convert) => ({
    operationId: 'getJwks',
    summary: 'The public keys that verify exchanged sessions',
    tags: ['Auth'],
    security: [],
    responses: { '200': { description: 'A JSON Web Key Set.', content: { 'application/json': { schema: convert(JwksSchema) } } } },
  }),
};

/**
 * POST /api/v1/auth/session: a developer token exchanged for a short-lived session JWT signed by
 * this server (for the local MCP process); GET /api/v1/.well-known/jwks.json: the keys that verify it.
 */
export function authRoutes(ports: AuthPorts, keys: SessionKeys, maxJsonBytes: number): { method: Method; path: string; handle: RouteHandler }[] {
  async function exchange(request: CoreRequest, caller: Caller, rateHeaders: Record<string, string>): Promise<CoreResponse> {
    // Only a developer token is exchanged: a session can never be traded for a longer one.
    if (caller.credential !== 'developer-token' || !caller.tokenId) {
      throw new ApiError('FORBIDDEN', 'Only a developer token (smcp_...) can be exchanged for a session.');
    }
    validate(Strict({}), (await readJsonBody(request, maxJsonBytes)) ?? {});
    const token = await ports.storage.getToken(caller.tokenId);
    const scopes = [...caller.scopes];
    const { jwt, expiresIn } = await keys.issue({
      accountId: caller.account.id,
      scopes,
      developerTokenId: caller.tokenId,
      notAfterMs: token?.expires_at ? Date.parse(token.expires_at) : null,
    });
    return jsonResponse(200, { access_token: jwt, token_type: 'Bearer', expires_in: expiresIn, scope: scopes.join(' ') }, { ...rateHeaders, 'cache-control': 'no-store' });
  }

  return [
    {
      ...sessionRoute,
      async handle(request) {
        const { caller, rateHeaders } = await authenticateAndTake(ports, request, 'write');
        try {
          return await exchange(request, caller, rateHeaders);
        } catch (error) {
          throw isApiError(error) ? error.withHeaders(rateHeaders) : error;
        }
      },
    },
    {
      ...jwksRoute,
      async handle() {
        return jsonResponse(200, await keys.jwks(), { 'cache-control': 'public, max-age=300' });
      },
    },
  ];
}
