import { Type } from '@sinclair/typebox';
import { ApiError } from '../errors.js';
import { RevokeTokenQuery, RevokeTokenResultSchema, TokenListSchema } from '../schemas/token.js';
import { defineOperation, nowIso } from './context.js';
import { revokeTokenWithEvent } from '../changes/outbox-events.js';
import { tokenView } from '../views.js';

export const listTokens = defineOperation({
  name: 'listTokens',
  rest: { method: 'GET', path: '/tokens', tag: 'Tokens' },
  summary: "List the caller's developer tokens (never their secrets)",
  scope: 'tokens:read',
  errors: [],
  requestClass: 'read',
  input: Type.Object({}, { additionalProperties: false }),
  output: TokenListSchema,
  async run(ctx) {
    const tokens = await ctx.ports.storage.listTokens(ctx.caller.account.id);
    return { data: tokens.map(tokenView) };
  },
});

export const revokeToken = defineOperation({
  name: 'revokeToken',
  rest: { method: 'DELETE', path: '/tokens', query: true, tag: 'Tokens' },
  summary: 'Revoke a developer token; it stops working on its next request',
  description: 'Revoking a token that is already revoked answers 200 again, with its first revoked_at.',
  scope: 'tokens:revoke',
  errors: ['NOT_FOUND'],
  requestClass: 'write',
  input: RevokeTokenQuery,
  output: RevokeTokenResultSchema,
  async run(ctx, input) {
    const token = await revokeTokenWithEvent(ctx.ports, ctx.caller.account.id, input.id, nowIso(ctx));
    if (!token) throw new ApiError('NOT_FOUND', 'No token with this id.');
    return { success: true as const, id: token.id, revoked_at: token.revoked_at! };
  },
});

/** The family's operations, in the order REST lists them and MCP offers their tools. */
export const tokenOperations = [listTokens, revokeToken];
