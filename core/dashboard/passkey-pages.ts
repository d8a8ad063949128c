/**
 * Passkeys (docs/dashboard.md, "Passkeys"): a signed-in account enrols them (several, each named)
 * and removes them on its Passkeys page; then anyone signs in with one from the sign-in page, with
 * no username (they are discoverable). The WebAuthn ceremonies are webauthn.ts's; the dashboard's
 * script (static.ts) runs the browser's side and talks to the JSON routes here, whose refusals are
 * JSON too. A passkey that does not sign in is a failed authentication of the address
 * (sign-in-limit.ts).
 */
import { ApiError, isApiError, statusOf } from '../errors.js';
import type { CoreResponse } from '../pipeline/request.js';
import type { PasskeyRecord } from '../ports/passkeys.js';
import { html, type Html } from './html.js';
import { layout, type Place } from './pages.js';
import { json, jsonAnswer, page, redirect } from './respond.js';
import type { DashboardRoute, RouteRequest, SignedInRequest } from './routes.js';
import { checkSameOrigin, sessionCookie, startSession } from './session.js';
import { signInAttempt } from './sign-in-limit.js';
import { enrolmentOptions, relyingParty, signInOptions, verifyEnrolment, verifySignIn } from './webauthn.js';

const when = (at: string | null, none: string) => (at ? html`<time datetime="${at}">${at.slice(0, 16).replace('T', ' ')} UTC</time>` : none);

export function passkeysPage(place: Place, passkeys: readonly PasskeyRecord[], host: string): Html {
  const rows = passkeys.map(
    (p) => html`<tr>
<td>${p.name}</td><td>${when(p.created_at, '')}</td><td>${when(p.last_used_at, 'never')}</td>
<td><form method="post" action="${place.base}/passkeys/${p.id}/remove" data-confirm="${`Remove the passkey “${p.name}”? It will no longer sign you in.`}"><input type="hidden" name="form_token" value="${place.formToken ?? ''}"><button type="submit">Remove</button></form></td>
</tr>`,
  );
  return layout(place, 'Passkeys', html`<p>A passkey signs you in with your device’s screen lock or a security key, without a link. It belongs to this site (<code>${host}</code>) and to this account.</p>
<section aria-labelledby="add-passkey">
<h2 id="add-passkey">Add a passkey</h2>
<form data-passkey-add="${place.base}" data-form-token="${place.formToken ?? ''}">
<p><label>Name <input name="name" required maxlength="100" autocomplete="off" placeholder="Laptop"></label> <button type="submit">Add a passkey</button></p>
</form>
<p id="passkey-status" role="status"></p>
<noscript><p>Adding a passkey needs JavaScript: your browser makes it.</p></noscript>
</section>
<section aria-labelledby="passkeys">
<h2 id="passkeys">Your passkeys</h2>
${passkeys.length === 0 ? html`<p>No passkeys yet.</p>` : html`<table>
<thead><tr><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="hidden">Remove</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`}
</section>`);
}

const nameOf = (body: unknown): string => {
  const name = typeof (body as { name?: unknown })?.name === 'string' ? (body as { name: string }).name.trim() : '';
  if (!name || name.length > 100) throw new ApiError('INVALID_INPUT', 'Give the passkey a name of 1 to 100 characters ("Laptop", "Phone").');
  return name;
};

export const passkeyRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/passkeys',
    role: 'account',
    async handle({ exchange, store, ctx, place }) {
      return page(200, passkeysPage(place, await store().passkeys.listPasskeys(ctx.caller.account.id), relyingParty(exchange).id));
    },
  },
  {
    method: 'POST',
    path: '/passkeys/options',
    role: 'account',
    body: 'json',
    handle: json(async ({ exchange, store, ctx, parts }: SignedInRequest) => jsonAnswer(200, await enrolmentOptions(store().passkeys, parts.ports, exchange, ctx.caller.account))),
  },
  {
    method: 'POST',
    path: '/passkeys',
    role: 'account',
    body: 'json',
    handle: json(async ({ exchange, store, ctx, parts, place }: SignedInRequest) => {
      const body = await exchange.readJson();
      const name = nameOf(body);
      const passkey = await verifyEnrolment(store().passkeys, parts.ports, exchange, ctx.caller.account, body, name);
      if (!(await store().passkeys.addPasskey(passkey))) throw new ApiError('CONFLICT', 'This passkey is enrolled already.');
      return jsonAnswer(200, { name, redirect: `${place.base}/passkeys` });
    }),
  },
  {
    method: 'POST',
    path: '/passkeys/{id}/remove',
    role: 'account',
    async handle({ store, ctx, params, place }) {
      if (!(await store().passkeys.deletePasskey(ctx.caller.account.id, params.id!))) throw new ApiError('NOT_FOUND', 'You have no such passkey (it may have been removed already).');
      return redirect(`${place.base}/passkeys`);
    },
  },
  {
    method: 'POST',
    path: '/sign-in/passkey/options',
    role: 'public',
    body: 'json',
    handle: json(async ({ exchange, store, parts }: RouteRequest) => {
      checkSameOrigin(exchange.request, exchange.siteUrl);
      return jsonAnswer(200, await signInOptions(store().passkeys, parts.ports, exchange));
    }),
  },
  {
    method: 'POST',
    path: '/sign-in/passkey/verify',
    role: 'public',
    body: 'json',
    handle: json(async ({ exchange, store, parts, place, session }: RouteRequest) => {
      checkSameOrigin(exchange.request, exchange.siteUrl);
      const { ports } = parts;
      const body = await exchange.readJson();
      const accountId = await signInAttempt(ports, exchange.request, async (fail) => {
        try {
          return await verifySignIn(store().passkeys, ports, exchange, body);
        } catch (error) {
          // Only a passkey that does not sign in is charged: a malformed body (400) is not a guess.
          if (isApiError(error) && error.code === 'UNAUTHORIZED') return fail(error);
          throw error;
        }
      });
      const account = await ports.storage.getAccount(accountId);
      if (!account || account.is_suspended) throw new ApiError('FORBIDDEN', 'This account is suspended: ask your operator.');
      const started = await startSession(store(), ports.ids, ports.clock, accountId, session);
      return jsonAnswer(200, { redirect: `${place.base}/` }, { 'set-cookie': sessionCookie(started.secret, session, exchange.siteUrl.startsWith('https:')) });
    }),
  },
];
