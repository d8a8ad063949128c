/**
 * Signing in and out (docs/dashboard.md, "Signing in"): a one-time link's GET shows Continue and
 * uses nothing up (previews and scanners open links); its POST, from the dashboard's own page, uses
 * the link up and starts a session. Sign out ends this session, or (everywhere) every session of
 * the account.
 */
import { ApiError } from '../errors.js';
import { checkSameOrigin, hashOf, sessionCookie, startSession } from './session.js';
import { signInAttempt } from './sign-in-limit.js';
import { continuePage, errorPage, homePage, signInNeeded } from './pages.js';
import { statusOf } from '../errors.js';
import { page, redirect } from './respond.js';
import type { DashboardRoute } from './routes.js';

export const signInRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/sign-in',
    role: 'public',
    async handle({ place, signedIn, parts }) {
      if (signedIn) return redirect(`${place.base}/`);
      const { authenticate, signInUrl } = parts.dashboard;
      // Signed in by the application (dashboard.authenticate): its sign-in page, or word of it.
      if (authenticate) return signInUrl ? redirect(signInUrl) : page(statusOf('UNAUTHORIZED'), errorPage(place, 'Sign in', 'Sign in to the application this dashboard belongs to, then open the dashboard again.'));
      return page(200, signInNeeded(place));
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
      // A link that is not live is a failed authentication of the address (sign-in-limit.ts): past the budget, 429.
      const gone = new ApiError('UNAUTHORIZED', 'This sign-in link has been used or has expired. Ask for a new one.');
      let accountId: string;
      try {
        accountId = await signInAttempt(ports, exchange.request, async (fail) => {
          const found = /^[A-Za-z0-9_-]{43}$/.test(params.link!) ? await store().consumeSignInLink(hashOf(params.link!), new Date(ports.clock.now()).toISOString()) : null;
          return found ?? fail(gone);
        });
      } catch (error) {
        if (error !== gone) throw error;
        return page(410, signInNeeded(place, gone.message));
      }
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
