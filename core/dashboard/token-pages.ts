/**
 * The seller's developer tokens (docs/dashboard.md, "The pages"): the list and a revoke are the
 * operations REST runs (listTokens, revokeToken); a new token is made as `marketkit token create`
 * makes one (admin.createToken), an ordinary developer token, and shown this once.
 */
import { allScopes, defaultTokenScopes, type Scope } from '../domain/scopes.js';
import { ApiError } from '../errors.js';
import { listTokens, revokeToken } from '../operations/tokens.js';
import { runOperation } from '../pipeline/run-operation.js';
import { isSingleLine, textFormatWords } from '../schemas/text.js';
import { tokenCreatedPage, tokensPage } from './pages.js';
import { page, redirect } from './respond.js';
import type { DashboardRoute } from './routes.js';

export const tokenRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/tokens',
    role: 'account',
    async handle({ ctx, place }) {
      const listed = (await runOperation(ctx, listTokens, {})).value as { data: Parameters<typeof tokensPage>[1] };
      return page(200, tokensPage(place, listed.data, allScopes, defaultTokenScopes));
    },
  },
  {
    method: 'POST',
    path: '/tokens',
    role: 'account',
    async handle({ ctx, place, form, parts }) {
      const name = (form.get('name') ?? '').trim();
      if (!name || name.length > 100) throw new ApiError('INVALID_INPUT', 'Give the token a name of 1 to 100 characters.');
      // The API's rule for a token's name (a single-line text field): no U+0000, no control or bidirectional-override character.
      const words = textFormatWords['single-line']!;
      if (!isSingleLine(name)) throw new ApiError('INVALID_INPUT', `The name ${words}.`, { details: [{ path: 'name', message: words }] });
      const scopes = form.getAll('scopes').filter((scope): scope is Scope => (allScopes as readonly string[]).includes(scope));
      if (scopes.length === 0) throw new ApiError('INVALID_INPUT', 'Choose at least one scope.');
      const days = form.get('expires_in_days');
      const expiresAt = days ? new Date(parts.ports.clock.now() + Math.min(Math.max(Number(days) || 0, 1), 3650) * 86_400_000) : undefined;
      const issued = await parts.admin.createToken({ accountId: ctx.caller.account.id, name, scopes, ...(expiresAt ? { expiresAt } : {}) });
      return page(200, tokenCreatedPage(place, name, issued.token));
    },
  },
  {
    method: 'POST',
    path: '/tokens/{id}/revoke',
    role: 'account',
    async handle({ ctx, place, params }) {
      await runOperation(ctx, revokeToken, { id: params.id });
      return redirect(`${place.base}/tokens`);
    },
  },
];
