/**
 * The dashboard (docs/dashboard.md): a surface of the marketplace's one frame, at its base path
 * (`/dashboard`), so every binding that serves the marketplace serves it, under a prefix too. Its
 * pages act through the same operations as REST and MCP (runOperation, with a caller made from the
 * session: no second copy of a rule); a session is never an API credential, and an API token never
 * opens a page.
 *
 * The request path, in order: the route (`#route`), the session (`sessionOf`), for a POST the
 * origin and the form token, then the page or the action, and any refusal as a page of its own.
 */
import { allScopes, defaultTokenScopes, type Scope } from '../domain/scopes.js';
import { ApiError, isApiError, statusOf } from '../errors.js';
import type { Admin } from '../admin/accounts.js';
import type { OperationContext, Ports, Settings } from '../operations/context.js';
import type { UploadSigner } from '../operations/blob-urls.js';
import { listTokens, revokeToken } from '../operations/tokens.js';
import { readAllBytes } from '../pipeline/body.js';
import type { Exchange, Surface } from '../pipeline/frame.js';
import type { CoreResponse } from '../pipeline/request.js';
import { runOperation } from '../pipeline/run-operation.js';
import { dashboardOf, type DashboardPort } from '../ports/dashboard.js';
import type { Html } from './html.js';
import { continuePage, errorPage, homePage, signInNeeded, tokenCreatedPage, tokensPage, type Place } from './pages.js';
import { checkFormToken, checkSameOrigin, hashOf, sessionCookie, sessionOf, startSession, type SessionSettings, type SignedIn } from './session.js';
import { dashboardScript, dashboardStyles } from './static.js';

/** The dashboard's settings (createMarketplace's `dashboard` option, marketkit serve's flags). */
export interface DashboardSettings {
  /** Where it is mounted: `/dashboard` by default. */
  basePath: string;
  /** A session ends after this long without a request (12 hours by default)... */
  sessionIdleMs: number;
  /** ...and this long after signing in, however active (7 days by default). */
  sessionMaxMs: number;
}

export interface DashboardParts {
  ports: Ports;
  settings: Settings;
  signer: UploadSigner;
  admin: Admin;
  dashboard: DashboardSettings;
}

const securityHeaders: Record<string, string> = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

const page = (status: number, body: Html, headers: Record<string, string> = {}): CoreResponse => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8', ...securityHeaders, ...headers },
  body: body.text,
});

const redirect = (location: string, headers: Record<string, string> = {}): CoreResponse => ({ status: 303, headers: { location, ...securityHeaders, ...headers }, body: null });

/** The error page's heading for the refusals a page meets most. */
const titles: Partial<Record<string, string>> = { NOT_FOUND: 'Not found', FORBIDDEN: 'Not allowed', UNAUTHORIZED: 'Signed out' };

const staticFile = (type: string, text: string): CoreResponse => ({ status: 200, headers: { 'content-type': `${type}; charset=utf-8`, 'cache-control': 'public, max-age=300', 'x-content-type-options': 'nosniff' }, body: text });

/** A form body: url-encoded, at most 16 KiB. */
async function readForm(exchange: Exchange): Promise<URLSearchParams> {
  const type = (exchange.request.header('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the dashboard’s forms as they are (application/x-www-form-urlencoded).');
  const bytes = exchange.request.body ? await readAllBytes(exchange.request.body, 16 * 1024) : new Uint8Array(0);
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

export function dashboardSurface(parts: DashboardParts): Surface {
  const { ports, dashboard } = parts;
  const base = dashboard.basePath;
  const store = (): DashboardPort => {
    const found = dashboardOf(ports.storage);
    if (!found) throw new ApiError('NOT_FOUND', 'This storage keeps no dashboard sessions: use memory, SQLite or PostgreSQL storage, or pass dashboard.authenticate.');
    return found;
  };

  /** The dashboard's address for this request: the binding's prefix, then the base path. */
  const placeOf = (exchange: Exchange, signedIn: SignedIn | null, username: string | null): Place => ({
    base: `${exchange.request.basePath ?? ''}${base}`,
    username,
    formToken: signedIn?.session.form_token ?? null,
  });
  const sessionSettings = (exchange: Exchange): SessionSettings => ({ basePath: `${exchange.request.basePath ?? ''}${base}`, idleMs: dashboard.sessionIdleMs, absoluteMs: dashboard.sessionMaxMs });
  const secure = (exchange: Exchange) => exchange.siteUrl.startsWith('https:');

  /** The operations' context for the signed-in account: every scope a token could hold (a person, not a token), no token. */
  async function contextOf(exchange: Exchange, accountId: string): Promise<OperationContext> {
    const account = await ports.storage.getAccount(accountId);
    if (!account || account.is_suspended) throw new ApiError('FORBIDDEN', 'This account is suspended: ask your operator.');
    let stamp = ports.reads.observe();
    if (typeof stamp !== 'number') stamp = await stamp;
    return { caller: { account, scopes: new Set(allScopes), tokenId: null, credential: 'dashboard' }, ports, settings: parts.settings, signer: parts.signer, siteUrl: exchange.siteUrl, stamp };
  }

  async function signIn(exchange: Exchange, secret: string): Promise<CoreResponse> {
    checkSameOrigin(exchange.request, exchange.siteUrl);
    const settings = sessionSettings(exchange);
    const accountId = await store().consumeSignInLink(hashOf(secret), new Date(ports.clock.now()).toISOString());
    if (!accountId) return page(410, signInNeeded(placeOf(exchange, null, null), 'This sign-in link has been used or has expired. Ask for a new one.'));
    const started = await startSession(store(), ports.ids, ports.clock, accountId, settings);
    return redirect(`${settings.basePath}/`, { 'set-cookie': sessionCookie(started.secret, settings, secure(exchange)) });
  }

  async function signedInRoute(exchange: Exchange, signedIn: SignedIn, rest: string): Promise<CoreResponse> {
    const { request } = exchange;
    const ctx = await contextOf(exchange, signedIn.session.account_id);
    const place = placeOf(exchange, signedIn, ctx.caller.account.username);
    if (request.method === 'POST') {
      checkSameOrigin(request, exchange.siteUrl);
      const form = await readForm(exchange);
      checkFormToken(form, signedIn.session);
      return act(exchange, ctx, place, signedIn, rest, form);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') throw new ApiError('METHOD_NOT_ALLOWED', 'Use GET or POST here.', { headers: { allow: 'GET, POST' } });
    if (rest === '/' || rest === '') return page(200, homePage(place));
    if (rest === '/tokens') {
      const listed = (await runOperation(ctx, listTokens, {})).value as { data: Parameters<typeof tokensPage>[1] };
      return page(200, tokensPage(place, listed.data, allScopes, defaultTokenScopes));
    }
    throw new ApiError('NOT_FOUND', 'No such page.');
  }

  async function act(exchange: Exchange, ctx: OperationContext, place: Place, signedIn: SignedIn, rest: string, form: URLSearchParams): Promise<CoreResponse> {
    if (rest === '/sign-out') {
      if (form.get('everywhere') === '1') await store().deleteSessionsOf(signedIn.session.account_id);
      else await store().deleteSession(signedIn.session.hash);
      const settings = sessionSettings(exchange);
      return redirect(`${place.base}/sign-in`, { 'set-cookie': sessionCookie(null, settings, secure(exchange)) });
    }
    if (rest === '/tokens') {
      const name = (form.get('name') ?? '').trim();
      if (!name || name.length > 100) throw new ApiError('INVALID_INPUT', 'Give the token a name of 1 to 100 characters.');
      const scopes = form.getAll('scopes').filter((scope): scope is Scope => (allScopes as readonly string[]).includes(scope));
      if (scopes.length === 0) throw new ApiError('INVALID_INPUT', 'Choose at least one scope.');
      const days = form.get('expires_in_days');
      const expiresAt = days ? new Date(ports.clock.now() + Math.min(Math.max(Number(days) || 0, 1), 3650) * 86_400_000) : undefined;
      const issued = await parts.admin.createToken({ accountId: ctx.caller.account.id, name, scopes, ...(expiresAt ? { expiresAt } : {}) });
      return page(200, tokenCreatedPage(place, name, issued.token));
    }
    const revoke = /^\/tokens\/([^/]+)\/revoke$/.exec(rest);
    if (revoke) {
      await runOperation(ctx, revokeToken, { id: decodeURIComponent(revoke[1]!) });
      return redirect(`${place.base}/tokens`);
    }
    throw new ApiError('NOT_FOUND', 'No such action.');
  }

  async function route(exchange: Exchange): Promise<CoreResponse> {
    const rest = exchange.path.slice(base.length);
    exchange.route = `${base}${rest.startsWith('/static/') ? '/static/{file}' : rest.startsWith('/sign-in/') ? '/sign-in/{link}' : rest.replace(/^\/tokens\/[^/]+\/revoke$/, '/tokens/{id}/revoke')}`;
    if (rest === '/static/dashboard.js') return staticFile('text/javascript', dashboardScript);
    if (rest === '/static/dashboard.css') return staticFile('text/css', dashboardStyles);
    const link = /^\/sign-in\/([A-Za-z0-9_-]{43})$/.exec(rest);
    if (link) {
      if (exchange.request.method === 'POST') return signIn(exchange, link[1]!);
      // A GET uses nothing up: previews and scanners open links.
      return page(200, continuePage(placeOf(exchange, null, null), `${placeOf(exchange, null, null).base}/sign-in/${link[1]}`));
    }
    const signedIn = await sessionOf(store(), ports.clock, exchange.request, sessionSettings(exchange));
    if (rest === '/sign-in') return signedIn ? redirect(`${placeOf(exchange, signedIn, null).base}/`) : page(200, signInNeeded(placeOf(exchange, null, null)));
    if (!signedIn) {
      if (exchange.request.method === 'GET') return redirect(`${placeOf(exchange, null, null).base}/sign-in`);
      throw new ApiError('UNAUTHORIZED', 'You are signed out: sign in again, then send the form again.');
    }
    return signedInRoute(exchange, signedIn, rest);
  }

  return {
    serves: (path) => path === base || path.startsWith(`${base}/`),
    async serve(exchange) {
      try {
        return await route(exchange);
      } catch (error) {
        // A refusal is a page; anything else is the frame's (a 500 logged, or the storage's 503).
        if (!isApiError(error)) throw error;
        return page(statusOf(error.code), errorPage(placeOf(exchange, null, null), titles[error.code] ?? 'That did not work', error.message), error.headers ?? {});
      }
    },
  };
}
