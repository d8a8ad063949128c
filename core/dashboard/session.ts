/**
 * Who is signed in to the dashboard, and whether an unsafe request may act for them
 * (docs/dashboard.md, "Signing in"; OWASP's session management and CSRF guidance):
 *
 * - a session is a random secret in a cookie (`HttpOnly`, `SameSite=Lax`, `Secure` on https, `Path`
 *   the dashboard's base path), kept server-side as its SHA-256 only, with an idle and an absolute
 *   expiry; it is never a bearer of the API, and an API token never opens the dashboard (the two
 *   are read from different places and checked by different code);
 * - every unsafe request must come from the dashboard's own pages: Origin (or, without it,
 *   Sec-Fetch-Site) names this site, and the form carries the session's form token.
 */
import { ApiError } from '../errors.js';
import type { DashboardPort, DashboardSessionRecord } from '../ports/dashboard.js';
import type { IdsPort } from '../ports/ids.js';
import type { ClockPort } from '../ports/clock.js';
import { sha256Hex } from '../domain/sha256.js';
import { dashboardOrigin, newSecret } from '../admin/sign-in-links.js';
import type { CoreRequest } from '../pipeline/request.js';

export const cookieName = 'marketkit_dashboard';

export interface SessionSettings {
  /** The path the dashboard is mounted at (`/dashboard`): the cookie's Path. */
  basePath: string;
  idleMs: number;
  absoluteMs: number;
}

/** What is stored for a secret. */
export const hashOf = (secret: string): string => sha256Hex(secret);

/** The cookies of a request, by name (the first of a repeated name). */
export function cookiesOf(request: CoreRequest): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (request.header('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 1) continue;
    const name = part.slice(0, at).trim();
    if (!found.has(name)) found.set(name, part.slice(at + 1).trim());
  }
  return found;
}

/** The Set-Cookie of a session's secret; `null` clears it. */
export function sessionCookie(secret: string | null, settings: SessionSettings, secure: boolean): string {
  const attributes = [`Path=${settings.basePath}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])];
  if (secret === null) return [`${cookieName}=`, ...attributes, 'Max-Age=0'].join('; ');
  return [`${cookieName}=${secret}`, ...attributes, `Max-Age=${Math.floor(settings.absoluteMs / 1000)}`].join('; ');
}

/** A signed-in browser: its session and the secret that names it. */
export interface SignedIn {
  session: DashboardSessionRecord;
  secret: string;
}

/**
 * The request's live session, or null: no cookie, an unknown secret, or one past its idle or
 * absolute expiry (then removed). A live one is marked seen, at most once a minute.
 */
export async function sessionOf(port: DashboardPort, clock: ClockPort, request: CoreRequest, settings: SessionSettings): Promise<SignedIn | null> {
  const secret = cookiesOf(request).get(cookieName);
  if (!secret || !/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
  const hash = hashOf(secret);
  const session = await port.getSession(hash);
  if (!session) return null;
  const now = clock.now();
  if (now >= Date.parse(session.expires_at) || now >= Date.parse(session.seen_at) + settings.idleMs) {
    await port.deleteSession(hash);
    return null;
  }
  if (now - Date.parse(session.seen_at) >= 60_000) await port.touchSession(hash, new Date(now).toISOString());
  return { session, secret };
}

/** A new session for the account: stored as its hash; the secret goes in the cookie. */
export async function startSession(port: DashboardPort, ids: IdsPort, clock: ClockPort, accountId: string, settings: SessionSettings): Promise<SignedIn> {
  const secret = newSecret(ids);
  const now = clock.now();
  const at = new Date(now).toISOString();
  const session: DashboardSessionRecord = { hash: hashOf(secret), account_id: accountId, form_token: newSecret(ids), created_at: at, seen_at: at, expires_at: new Date(now + settings.absoluteMs).toISOString() };
  // Each sign-in sweeps the sessions and links that ended, so abandoned ones never pile up.
  await port.sweepExpired(at, new Date(now - settings.idleMs).toISOString());
  await port.createSession(session);
  return { session, secret };
}

/**
 * An unsafe request (a POST) comes from one of the dashboard's own pages: its Origin is the site's,
 * or the site's as `localhost` on a loopback address (a browser sends Origin with every POST), or
 * without Origin (or with `null`: see below) its Sec-Fetch-Site says same-origin;
 * a request with neither is refused too (a browser always sends one of them). 403 otherwise.
 */
export function checkSameOrigin(request: CoreRequest, siteUrl: string): void {
  const origin = request.header('origin');
  // `Origin: null` is what a browser sends for a form of a page served with Referrer-Policy:
  // no-referrer (every page here: a sign-in link must never leave in a Referer); Sec-Fetch-Site decides then.
  if (origin !== undefined && origin !== 'null') {
    // The site's origin, its localhost form (the dashboard's own address on a loopback listen:
    // sign-in-links.ts), or the origin the request was sent to (its Host, as the binding saw it).
    if (origin === new URL(siteUrl).origin || origin === dashboardOrigin(siteUrl) || (request.origin !== undefined && origin === request.origin)) return;
    throw new ApiError('FORBIDDEN', 'This form was sent from another site: open the dashboard and send it from there.');
  }
  if (request.header('sec-fetch-site') === 'same-origin') return;
  throw new ApiError('FORBIDDEN', 'This request does not say where it came from (no Origin): send it from the dashboard’s own page.');
}

/** The form token a POST carried is its session's. 403 otherwise (a form left open after signing in again: reload it). */
export function checkFormToken(form: URLSearchParams, session: DashboardSessionRecord): void {
  const sent = form.get('form_token') ?? '';
  if (sent.length === session.form_token.length && timingSafeEqual(sent, session.form_token)) return;
  throw new ApiError('FORBIDDEN', 'This form has expired (it belongs to an earlier sign-in): reload the page and send it again.');
}

function timingSafeEqual(a: string, b: string): boolean {
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
