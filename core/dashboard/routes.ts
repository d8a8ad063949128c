/**
 * The dashboard's route table: every page and action is one entry (a method, a path template, the
 * role it needs, its handler), in the file of the pages it belongs to (token-pages.ts,
 * listing-pages.ts, review-pages.ts, ...). surface.ts matches a request against the table, signs the
 * browser in, checks the role on the server, and for a POST its origin and form token, before any
 * handler runs: a handler starts from a request that may act.
 */
import type { Admin } from '../admin/accounts.js';
import type { Moderation } from '../moderation/moderation.js';
import type { OperationContext, Ports, Settings } from '../operations/context.js';
import type { UploadSigner } from '../operations/blob-urls.js';
import type { Exchange } from '../pipeline/frame.js';
import type { CoreResponse } from '../pipeline/request.js';
import type { AccountRecord } from '../ports/records.js';
import type { DashboardPort } from '../ports/dashboard.js';
import type { Place } from './pages.js';
import type { SessionSettings, SignedIn } from './session.js';
import type { Authenticate } from './embedded-sign-in.js';

/** The dashboard's settings (createMarketplace's `dashboard` option, marketkit serve's flags). */
export interface DashboardSettings {
  /** Where it is mounted: `/dashboard` by default. */
  basePath: string;
  /** A session ends after this long without a request (12 hours by default)... */
  sessionIdleMs: number;
  /** ...and this long after signing in, however active (7 days by default). */
  sessionMaxMs: number;
  /** The application's own sign-in instead of links and passkeys (embedded-sign-in.ts). */
  authenticate?: Authenticate;
  /** Where a browser the application does not know is sent to sign in (with `authenticate`). */
  signInUrl?: string;
  /** Self sign-up (sign-up-pages.ts): a username and a passkey make a pending seller's account. Off by default; never with `authenticate`. */
  selfSignUp?: boolean;
}

/** What the dashboard is built from: the marketplace's ports and the parts its other surfaces use. */
export interface DashboardParts {
  ports: Ports;
  settings: Settings;
  signer: UploadSigner;
  admin: Admin;
  moderation: Moderation;
  dashboard: DashboardSettings;
}

/**
 * Who may open a route: anyone (`public`: signing in), any signed-in account (`account`: its own
 * tokens, listings and profile; the operations decide what a non-seller may do), a moderator
 * (the review queue) or an operator (accounts and roles; an operator is a moderator too).
 */
export type Role = 'public' | 'account' | 'moderator' | 'operator';

export function hasRole(account: Pick<AccountRecord, 'is_moderator' | 'is_operator'>, role: Role): boolean {
  if (role === 'public' || role === 'account') return true;
  if (role === 'moderator') return account.is_moderator || account.is_operator;
  return account.is_operator;
}

/** What every handler gets. */
export interface RouteRequest {
  exchange: Exchange;
  parts: DashboardParts;
  /** The storage's dashboard port (404 with a reason when the storage has none). */
  store(): DashboardPort;
  /** The path parameters, decoded: `{id}` of `/tokens/{id}/revoke`. */
  params: Record<string, string>;
  /** The query string. */
  query: URLSearchParams;
  /** The session's cookie settings for this request (its Path carries a binding's prefix). */
  session: SessionSettings;
  /** The links' base and, signed in, who and the form token. */
  place: Place;
  /** The browser's live session, if it has one (a public route may be opened signed in). */
  signedIn: SignedIn | null;
}

/** A handler for a signed-in browser: the session, and the operations' context of its account (every scope: a person, not a token). */
export interface SignedInRequest extends RouteRequest {
  signedIn: SignedIn;
  ctx: OperationContext;
  /** The form (a POST's url-encoded body, read and checked); empty for a GET and for `body: 'json'`. */
  form: URLSearchParams;
}

interface RouteBase {
  method: 'GET' | 'POST';
  /** Below the base path, with `{name}` placeholders: `/tokens/{id}/revoke`. */
  path: string;
  /** How a POST's body is read: a form (the default), or JSON fetched by the dashboard's script (its form token then in `x-form-token`). */
  body?: 'form' | 'json';
}

export interface PublicRoute extends RouteBase {
  role: 'public';
  handle(request: RouteRequest): Promise<CoreResponse>;
}

export interface SignedInRoute extends RouteBase {
  role: Exclude<Role, 'public'>;
  handle(request: SignedInRequest): Promise<CoreResponse>;
}

export type DashboardRoute = PublicRoute | SignedInRoute;

/** A route with its path compiled: what surface.ts matches. */
export interface CompiledRoute {
  route: DashboardRoute;
  pattern: RegExp;
  names: string[];
}

export function compileRoutes(routes: readonly DashboardRoute[]): CompiledRoute[] {
  return routes.map((route) => {
    const names: string[] = [];
    const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    return { route, pattern: new RegExp(`^${source}$`), names };
  });
}

/** The routes at this path (any method), each with its own parameters, decoded. */
export function matchRoutes(compiled: readonly CompiledRoute[], rest: string): { route: DashboardRoute; params: Record<string, string> }[] {
  const found: { route: DashboardRoute; params: Record<string, string> }[] = [];
  for (const entry of compiled) {
    const values = entry.pattern.exec(rest)?.slice(1);
    if (!values) continue;
    const params: Record<string, string> = {};
    entry.names.forEach((name, i) => {
      try {
        params[name] = decodeURIComponent(values[i]!);
      } catch {
        // A malformed escape is kept as sent: the handler's own lookup then finds nothing (404).
        params[name] = values[i]!;
      }
    });
    found.push({ route: entry.route, params });
  }
  return found;
}
