/**
 * Signing in and out (docs/dashboard.md, "Signing in"): a one-time link's GET shows Continue and
 * uses nothing up (previews and scanners open links); its POST, from the dashboard's own page, uses
 * the link up and starts a session. Sign out ends this session, or (everywhere) every session of
 * the account.
 */
import { checkSameOrigin, hashOf, sessionCookie, startSession } from './session.js';
import { continuePage, homePage, signInNeeded } from './pages.js';
import { page, redirect } from './respond.js';
import type { DashboardRoute } from './routes.js';

export const signInRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/sign-in',
    role: 'public',
    async handle({ place, signedIn }) {
      return signedIn ? redirect(`${place.base}/`) : page(200, signInNeeded(place));
    },
  },
  {
    method: 'GET',
    path: '/sign-in/{link}',
    role: 'public',
    async handle({ place, params }) {
      return page(200, continuePage(place, `${place.base}/sign-in/${encodeURIComponent(params.link!)}`));
    },
  },
  {
    method: 'POST',
    path: '/sign-in/{link}',
    role: 'public',
    async handle({ exchange, parts, store, params, place, session }) {
      checkSameOrigin(exchange.request, exchange.siteUrl);
      const { ports } = parts;
      const accountId = /^[A-Za-z0-9_-]{43}$/.test(params.link!) ? await store().consumeSignInLink(hashOf(params.link!), new Date(ports.clock.now()).toISOString()) : null;
      if (!accountId) return page(410, signInNeeded(place, 'This sign-in link has been used or has expired. Ask for a new one.'));
      const started = await startSession(store(), ports.ids, ports.clock, accountId, session);
      return redirect(`${place.base}/`, { 'set-cookie': sessionCookie(started.secret, session, exchange.siteUrl.startsWith('https:')) });
    },
  },
  {
    method: 'GET',
    path: '/',
    role: 'account',
    async handle({ place }) {
      return page(200, homePage(place));
    },
  },
  {
    method: 'POST',
    path: '/sign-out',
    role: 'account',
    async handle({ exchange, store, signedIn, form, place, session }) {
      if (form.get('everywhere') === '1') await store().deleteSessionsOf(signedIn.session.account_id);
      else await store().deleteSession(signedIn.session.hash);
      return redirect(`${place.base}/sign-in`, { 'set-cookie': sessionCookie(null, session, exchange.siteUrl.startsWith('https:')) });
    },
  },
];
