/**
 * One-time sign-in links to the dashboard (docs/dashboard.md, "Signing in"): made by an operator for
 * an account (`POST /api/admin/accounts/{account}/login-link`, `marketkit admin login-link`), single
 * use, short-lived (15 minutes by default), stored as the SHA-256 of their secret. The link's GET
 * only shows a Continue button; the POST it sends signs in (so a chat preview cannot use it up).
 */
import { Type } from '@sinclair/typebox';
import { ApiError } from '../errors.js';
import { dashboardOf } from '../ports/dashboard.js';
import { sha256Hex } from '../domain/sha256.js';
import { Strict, Timestamp } from '../schemas/common.js';
import type { AccountRecord } from '../ports/storage.js';
import type { Ports, Settings } from '../operations/context.js';

export const LoginLinkBody = Strict({
  site_url: Type.Optional(
    Type.String({ pattern: '^https?://[^/?#\\s]+$', maxLength: 200, description: 'The address browsers reach the service at (scheme and host); the request’s own by default.' }),
  ),
});

export const LoginLinkSchema = Strict(
  {
    url: Type.String({ description: 'The link: open it in a browser, then press Continue. It works once.' }),
    expires_at: Timestamp(),
  },
  { $id: 'LoginLink' },
);

/** The dashboard's defaults, where the process making the link does not serve it (marketkit admin). */
const defaults = { basePath: '/dashboard', signInLinkMs: 15 * 60 * 1000 };

/** A new secret for a link or a session: 32 random bytes, base64url (43 characters). */
export const newSecret = (ids: Pick<Ports['ids'], 'randomBytes'>): string =>
  btoa(String.fromCharCode(...ids.randomBytes(32))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/**
 * The address a browser opens the dashboard at: a loopback IP becomes `localhost`, since browsers
 * refuse an IP address as a passkey's relying party (../shared/notes/field-notes.md).
 */
export function dashboardOrigin(siteUrl: string): string {
  const url = new URL(siteUrl);
  if (url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = 'localhost';
  return url.origin;
}

/** The site's address as the dashboard's links name it: its origin as dashboardOrigin says, then the site URL's own path (a mount prefix: `/market`). */
export function dashboardSite(siteUrl: string): string {
  return `${dashboardOrigin(siteUrl)}${new URL(siteUrl).pathname.replace(/\/+$/, '')}`;
}

export async function issueSignInLink(ports: Ports, settings: Pick<Settings, 'dashboard'>, account: AccountRecord, siteUrl: string): Promise<{ url: string; expires_at: string }> {
  const store = dashboardOf(ports.storage);
  if (!store) throw new ApiError('PRECONDITION_FAILED', 'This storage keeps no dashboard sign-in links: use memory, SQLite or PostgreSQL storage.');
  if (account.is_suspended) throw new ApiError('PRECONDITION_FAILED', `The account ${account.username} is suspended: it cannot sign in.`);
  const { basePath, signInLinkMs } = settings.dashboard ?? defaults;
  const secret = newSecret(ports.ids);
  const now = ports.clock.now();
  const expires_at = new Date(now + signInLinkMs).toISOString();
  await store.createSignInLink({ hash: sha256Hex(secret), account_id: account.id, created_at: new Date(now).toISOString(), expires_at });
  return { url: `${dashboardSite(siteUrl)}${basePath}/sign-in/${secret}`, expires_at };
}
