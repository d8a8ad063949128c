/**
 * Self sign-up (docs/dashboard.md, "Self sign-up"; createMarketplace's `dashboard.selfSignUp`,
 * `marketkit serve --self-sign-up`): a username and a passkey make an account whose seller status is
 * pending until an operator approves it on its account page. The page is a form the dashboard's
 * script drives (static.ts): the options route checks the username and hands out an enrolment
 * challenge bound to it (webauthn.ts), the verify route verifies the new passkey, makes the account
 * as admin.createAccount makes every account, stores the passkey and starts the session a passkey
 * sign-in starts. surface.ts leaves these routes out (404) when the option is off and with
 * `dashboard.authenticate`. A passkey that does not verify is a failed authentication of the
 * address (sign-in-limit.ts), as a passkey sign-in's is.
 */
import { usernamePattern, usernameRule } from '../domain/accounts.js';
import { ApiError, isApiError } from '../errors.js';
import { html } from './html.js';
import { layout, type Place } from './pages.js';
import { json } from './respond.js';
import { jsonAnswer, page, redirect } from './respond.js';
import type { DashboardRoute, RouteRequest } from './routes.js';
import { checkSameOrigin, sessionCookie, startSession } from './session.js';
import { signInAttempt } from './sign-in-limit.js';
import { credentialOf, enrolmentOptions, verifyEnrolment } from './webauthn.js';

/** The name the passkey made at sign-up is listed under on the Passkeys page. */
const passkeyName = 'Passkey made at sign-up';

export const signUpPage = (place: Place) =>
  layout(place, 'Create an account', html`<p>Choose a username and make a passkey: your device’s screen lock or a security key signs you in from then on, with no password and no link.</p>
<p>Your account can sell once an operator has approved it.</p>
<form data-passkey-sign-up="${place.base}">
<p><label>Username <input name="username" required maxlength="40" autocomplete="username" aria-describedby="username-rule"></label></p>
<p id="username-rule" class="muted">${usernameRule}.</p>
<p><button type="submit">Create account with a passkey</button></p>
</form>
<p id="passkey-status" role="status"></p>
<noscript><p>Signing up needs JavaScript: your browser makes the passkey.</p></noscript>
<p>Have an account? <a href="${place.base}/sign-in">Sign in</a>.</p>`);

/** The username a sign-up asks for: 400 when it breaks the API's rule. */
function usernameOf(body: unknown): string {
  const username = (body as { username?: unknown } | null)?.username;
  if (typeof username !== 'string' || !usernamePattern.test(username)) throw new ApiError('INVALID_INPUT', `Choose a username of ${usernameRule}.`);
  return username;
}

/** 409 when an account has the username (usernames are unique ignoring case). */
async function checkFree({ parts }: RouteRequest, username: string): Promise<void> {
  if (await parts.ports.storage.findAccountByUsername(username)) throw new ApiError('CONFLICT', `The username “${username}” is taken: choose another.`);
}

export const signUpRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/sign-up',
    role: 'public',
    async handle({ place, signedIn }) {
      if (signedIn) return redirect(`${place.base}/`);
      return page(200, signUpPage(place));
    },
  },
  {
    method: 'POST',
    path: '/sign-up/options',
    role: 'public',
    body: 'json',
    handle: json(async (request: RouteRequest) => {
      const { exchange, store, parts } = request;
      checkSameOrigin(exchange.request, exchange.siteUrl);
      const username = usernameOf(await exchange.readJson());
      await checkFree(request, username);
      return jsonAnswer(200, await enrolmentOptions(store().passkeys, parts.ports, exchange, { id: null, username, display_name: null }));
    }),
  },
  {
    method: 'POST',
    path: '/sign-up/verify',
    role: 'public',
    body: 'json',
    handle: json(async (request: RouteRequest) => {
      const { exchange, store, parts, place, session } = request;
      checkSameOrigin(exchange.request, exchange.siteUrl);
      const { ports } = parts;
      const body = await exchange.readJson();
      const username = usernameOf(body);
      // A body that is no credential at all is no guess (400, not charged); one that does not verify is.
      credentialOf(body);
      const made = await signInAttempt(ports, exchange.request, async (fail) => {
        try {
          return await verifyEnrolment(store().passkeys, ports, exchange, { id: null, username, display_name: null }, body, passkeyName);
        } catch (error) {
          if (isApiError(error)) return fail(error);
          throw error;
        }
      });
      // Taken since the options were handed out: the passkey the browser made stays unused.
      await checkFree(request, username);
      const account = await parts.admin.createAccount({ username, seller_status: 'pending' });
      if (!(await store().passkeys.addPasskey({ ...made, account_id: account.id }))) throw new ApiError('CONFLICT', 'This passkey is enrolled already: sign in with a link your operator gives you, then add another.');
      const started = await startSession(store(), ports.ids, ports.clock, account.id, session);
      return jsonAnswer(200, { redirect: `${place.base}/` }, { 'set-cookie': sessionCookie(started.secret, session, exchange.siteUrl.startsWith('https:')) });
    }),
  },
];
