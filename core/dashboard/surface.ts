/**
 * The dashboard (docs/dashboard.md): a surface of the marketplace's one frame, at its base path
 * (`/dashboard`), so every binding that serves the marketplace serves it, under a prefix too. Its
 * pages act through the same operations as REST and MCP (runOperation, with a caller made from the
 * session: no second copy of a rule); a session is never an API credential, and an API token never
 * opens a page.
 *
 * The request path, in order (`route` below): the static files; the route table (routes.ts: each
 * page file's routes) by path, then by method; the session (`sessionOf`); the route's role, checked
 * on the server; for a POST the origin and the form token; then the handler. A refusal anywhere is
 * a page of its own (`serve`).
 */
import { allScopes } from '../domain/scopes.js';
import { ApiError, isApiError, statusOf } from '../errors.js';
import type { OperationContext } from '../operations/context.js';
import { readAllBytes } from '../pipeline/body.js';
import type { Exchange, Surface } from '../pipeline/frame.js';
import type { CoreResponse } from '../pipeline/request.js';
import { dashboardOf, type DashboardPort } from '../ports/dashboard.js';
import { listingRoutes } from './listing-pages.js';
import { errorPage, type Place } from './pages.js';
import { page, redirect, staticFile } from './respond.js';
import { compileRoutes, hasRole, matchRoutes, type DashboardParts, type DashboardRoute, type RouteRequest, type SignedInRoute } from './routes.js';
import { checkFormToken, checkSameOrigin, sessionOf, type SessionSettings, type SignedIn } from './session.js';
import { signInRoutes } from './sign-in-pages.js';
import { signUpRoutes } from './sign-up-pages.js';
import { embeddedSession } from './embedded-sign-in.js';
import { dashboardScript, dashboardStyles } from './static.js';
import { tokenRoutes } from './token-pages.js';
import { passkeyRoutes } from './passkey-pages.js';
import { reviewRoutes } from './review-pages.js';
import { accountRoutes } from './account-pages.js';
import { webhookRoutes } from './webhook-pages.js';
import { profileRoutes } from './profile-pages.js';
import { uploadRoutes } from './upload-pages.js';
import { tusClientScript } from './vendor/tus.js';

export type { DashboardParts, DashboardSettings } from './routes.js';

/** Every page and action of the dashboard, by the file of its pages. */
const routeTable: readonly DashboardRoute[] = [...signInRoutes, ...signUpRoutes, ...listingRoutes, ...tokenRoutes, ...passkeyRoutes, ...reviewRoutes, ...accountRoutes, ...webhookRoutes, ...profileRoutes, ...uploadRoutes];

/** The error page's heading for the refusals a page meets most. */
const titles: Partial<Record<string, string>> = { NOT_FOUND: 'Not found', FORBIDDEN: 'Not allowed', UNAUTHORIZED: 'Signed out' };

/** A form body: url-encoded, at most 16 KiB. */
async function readForm(exchange: Exchange): Promise<URLSearchParams> {
  const type = (exchange.request.header('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the dashboard’s forms as they are (application/x-www-form-urlencoded).');
  const bytes = exchange.request.body ? await readAllBytes(exchange.request.body, 16 * 1024) : new Uint8Array(0);
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

export function dashboardSurface(parts: DashboardParts, routes: readonly DashboardRoute[] = routeTable): Surface {
  const { ports, dashboard } = parts;
  const base = dashboard.basePath;
  // With the application's own sign-in, the dashboard's links, passkeys and sign-out are not there.
  const ownSignIn = (path: string) => path.startsWith('/sign-in/') || path.startsWith('/passkeys') || path === '/sign-out';
  // Self sign-up is there only when asked for (dashboard.selfSignUp), and never with the application's sign-in.
  const signUp = Boolean(dashboard.selfSignUp && !dashboard.authenticate);
  const isSignUp = (path: string) => path === '/sign-up' || path.startsWith('/sign-up/');
  const compiled = compileRoutes(routes.filter((entry) => !(dashboard.authenticate && ownSignIn(entry.path)) && (signUp || !isSignUp(entry.path))));
  const store = (): DashboardPort => {
    const found = dashboardOf(ports.storage);
    if (!found) throw new ApiError('NOT_FOUND', 'This storage keeps no dashboard sessions: use memory, SQLite or PostgreSQL storage.');
    return found;
  };
  const baseOf = (exchange: Exchange) => `${exchange.request.basePath ?? ''}${base}`;
  const anonymous = (exchange: Exchange): Place => ({ base: baseOf(exchange), username: null, formToken: null, moderator: false, operator: false, signUp });
  const sessionSettings = (exchange: Exchange): SessionSettings => ({ basePath: baseOf(exchange), idleMs: dashboard.sessionIdleMs, absoluteMs: dashboard.sessionMaxMs });

  /** The operations' context for the signed-in account: every scope a token could hold (a person, not a token), no token. */
  async function contextOf(exchange: Exchange, accountId: string): Promise<OperationContext> {
    const account = await ports.storage.getAccount(accountId);
    if (!account || account.is_suspended) throw new ApiError('FORBIDDEN', 'This account is suspended: ask your operator.');
    let stamp = ports.reads.observe();
    if (typeof stamp !== 'number') stamp = await stamp;
    return { caller: { account, scopes: new Set(allScopes), tokenId: null, credential: 'dashboard' }, ports, settings: parts.settings, signer: parts.signer, siteUrl: exchange.siteUrl, stamp };
  }

  async function signedInRequest(exchange: Exchange, request: RouteRequest, signedIn: SignedIn, entry: SignedInRoute): Promise<CoreResponse> {
    const ctx = await contextOf(exchange, signedIn.session.account_id);
    const { account } = ctx.caller;
    if (!hasRole(account, entry.role)) throw new ApiError('FORBIDDEN', entry.role === 'operator' ? 'Only an operator may open this page.' : 'Only a moderator may open this page.');
    const place: Place = { base: request.place.base, username: account.username, formToken: signedIn.session.form_token, moderator: hasRole(account, 'moderator'), operator: account.is_operator, embedded: Boolean(dashboard.authenticate), pending: account.seller_status === 'pending' };
    let form = new URLSearchParams();
    if (entry.method === 'POST') {
      checkSameOrigin(exchange.request, exchange.siteUrl);
      if (entry.body === 'json') checkFormToken(new URLSearchParams({ form_token: exchange.request.header('x-form-token') ?? '' }), signedIn.session);
      else checkFormToken((form = await readForm(exchange)), signedIn.session);
    }
    return entry.handle({ ...request, place, signedIn, ctx, form });
  }

  async function route(exchange: Exchange): Promise<CoreResponse> {
    const rest = exchange.path.slice(base.length) || '/';
    if (rest.startsWith('/static/')) exchange.route = `${base}/static/{file}`;
    if (rest === '/static/dashboard.js') return staticFile('text/javascript', dashboardScript);
    if (rest === '/static/dashboard.css') return staticFile('text/css', dashboardStyles);
    if (rest === '/static/tus.min.js') return staticFile('text/javascript', tusClientScript());
    const found = matchRoutes(compiled, rest);
    if (found.length === 0) {
      exchange.route = `${base}/{unknown}`;
      throw new ApiError('NOT_FOUND', 'No such page.');
    }
    const method = exchange.request.method === 'HEAD' ? 'GET' : exchange.request.method;
    // A literal path is listed before a template it also matches (`/listings/new` before `/listings/{id}`): the first of the method wins.
    const chosen = found.find((candidate) => candidate.route.method === method);
    exchange.route = `${base}${(chosen ?? found[0]!).route.path}`;
    if (!chosen) {
      const allow = [...new Set(found.map((candidate) => candidate.route.method))].join(', ');
      throw new ApiError('METHOD_NOT_ALLOWED', `Use ${allow} here.`, { headers: { allow } });
    }
    const { route: entry, params } = chosen;
    let signedIn = await sessionOf(store(), ports.clock, exchange.request, sessionSettings(exchange));
    let cookie: string | undefined;
    if (dashboard.authenticate) ({ signedIn, cookie } = await embeddedSession(dashboard.authenticate, store(), ports, exchange.request, `${base}${rest}`, signedIn, sessionSettings(exchange), exchange.siteUrl.startsWith('https:')));
    const answer = await routeTo(exchange, entry, params, signedIn, method);
    if (cookie) answer.headers['set-cookie'] = cookie;
    return answer;
  }

  async function routeTo(exchange: Exchange, entry: DashboardRoute, params: Record<string, string>, signedIn: SignedIn | null, method: string): Promise<CoreResponse> {
    const request: RouteRequest = { exchange, parts, store, params, query: new URLSearchParams(exchange.query), session: sessionSettings(exchange), place: anonymous(exchange), signedIn };
    if (entry.role === 'public') return entry.handle(request);
    if (!signedIn) {
      if (method === 'GET') return redirect(`${baseOf(exchange)}/sign-in`);
      throw new ApiError('UNAUTHORIZED', 'You are signed out: sign in again, then send the form again.');
    }
    return signedInRequest(exchange, request, signedIn, entry);
  }

  return {
    serves: (path) => path === base || path.startsWith(`${base}/`),
    async serve(exchange) {
      try {
        return await route(exchange);
      } catch (error) {
        // A refusal is a page; anything else is the frame's (a 500 logged, or the storage's 503).
        if (!isApiError(error)) throw error;
        return page(statusOf(error.code), errorPage(anonymous(exchange), titles[error.code] ?? 'That did not work', error.message), error.headers ?? {});
      }
    },
  };
}
