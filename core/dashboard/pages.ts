/**
 * The dashboard's pages: server-rendered, escaped by default (html.ts), real forms that POST and
 * redirect. The one script (static.ts) only adds conveniences (copying a token, confirming a
 * revoke); every page works without it.
 */
import type { Scope } from '../domain/scopes.js';
import { html, type Html } from './html.js';

/** Where the dashboard is, for the links it writes: `/dashboard`, or `/market/dashboard` under a prefix. */
export interface Place {
  base: string;
  /** The signed-in account's username, or null on the pages before signing in. */
  username: string | null;
  /** The session's form token, for every form of a signed-in page. */
  formToken: string | null;
  /** The signed-in account's roles, for the links it is shown (each page checks its role on the server). */
  moderator: boolean;
  operator: boolean;
  /** Signed in by the application (dashboard.authenticate): no passkeys or sign-out of the dashboard's own. */
  embedded?: boolean;
  /** Self sign-up is on (dashboard.selfSignUp): the sign-in page links to it. */
  signUp?: boolean;
  /** The signed-in account's seller status is pending: an operator has yet to approve it. */
  pending?: boolean;
}

export const formToken = (place: Place) => html`<input type="hidden" name="form_token" value="${place.formToken ?? ''}">`;

export function layout(place: Place, title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title} · MarketKit dashboard</title>
<link rel="stylesheet" href="${place.base}/static/dashboard.css">
<script src="${place.base}/static/dashboard.js" defer></script>
</head>
<body>
<header>
<a class="brand" href="${place.base}/">MarketKit</a>
${place.username !== null && html`<nav aria-label="Main"><a href="${place.base}/listings">Listings</a> <a href="${place.base}/tokens">Tokens</a>${!place.embedded && html` <a href="${place.base}/passkeys">Passkeys</a>`} <a href="${place.base}/webhooks">Webhooks</a> <a href="${place.base}/profile">Profile</a>${place.moderator && html` <a href="${place.base}/review">Review queue</a>`}${place.operator && html` <a href="${place.base}/accounts">Accounts</a> <a href="${place.base}/audit">Audit log</a>`}</nav>
${place.embedded ? html`<span class="sign-out">${place.username}</span>` : html`<form method="post" action="${place.base}/sign-out" class="sign-out">${formToken(place)}<span>${place.username}</span> <button type="submit">Sign out</button></form>`}`}
</header>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}

export const homePage = (place: Place) =>
  layout(place, 'Dashboard', html`<p>Signed in as <strong>${place.username}</strong>.</p>
${place.pending && html`<p role="status">Your seller account waits for an operator’s approval: until then you cannot create listings (your profile, tokens and passkeys are yours already).</p>`}
<ul>
<li><a href="${place.base}/listings">Listings</a>: your listings by status, a new draft, editing, submitting for review, versions of a published listing.</li>
<li><a href="${place.base}/tokens">Developer tokens</a>: make one for the API and the MCP endpoint, see when each was last used, revoke one.</li>
<li><a href="${place.base}/webhooks">Webhooks</a>: endpoints that get your events, each delivery and its answer, redeliver one.</li>
<li><a href="${place.base}/profile">Profile</a>: your public seller profile: display name, bio, website, socials, hire, country.</li>
</ul>
${!place.embedded && html`<form method="post" action="${place.base}/sign-out">${formToken(place)}<input type="hidden" name="everywhere" value="1"><button type="submit">Sign out everywhere</button></form>`}`);

export const signInNeeded = (place: Place, note?: string) =>
  layout(place, 'Sign in', html`${note && html`<p role="status">${note}</p>`}
<p>Sign in with the one-time link your operator gave you (<code>marketkit admin login-link &lt;account&gt;</code>). A link works once, for 15 minutes.</p>
<p>Or, once you have added a passkey: <button type="button" data-passkey-sign-in="${place.base}">Sign in with a passkey</button></p>
<p id="passkey-status" role="status"></p>
${place.signUp && html`<p>No account yet? <a href="${place.base}/sign-up">Create one with a passkey</a>.</p>`}`);

/** The page a sign-in link opens: nothing is used up until the button is pressed (a link preview or a scanner only GETs). */
export const continuePage = (place: Place, action: string) =>
  layout(place, 'Sign in', html`<p>This link signs you in to the MarketKit dashboard. It works once.</p>
<form method="post" action="${action}"><button type="submit" autofocus>Continue</button></form>`);

export interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  scopes: readonly string[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
}

export const when = (at: string | null, none: string) => (at ? html`<time datetime="${at}">${at.slice(0, 16).replace('T', ' ')} UTC</time>` : none);

export function tokensPage(place: Place, tokens: readonly TokenRow[], scopes: readonly Scope[], defaults: readonly Scope[]): Html {
  const rows = tokens.map(
    (t) => html`<tr>
<td>${t.name}</td><td><code>${t.prefix}…</code></td><td>${t.scopes.join(', ')}</td><td>${when(t.created_at, '')}</td><td>${when(t.last_used_at, 'never')}</td><td>${when(t.expires_at, 'never')}</td>
<td><form method="post" action="${place.base}/tokens/${t.id}/revoke" data-confirm="${`Revoke the token “${t.name}”? Anything using it stops working at once.`}">${formToken(place)}<button type="submit">Revoke</button></form></td>
</tr>`,
  );
  return layout(place, 'Developer tokens', html`<section aria-labelledby="new-token">
<h2 id="new-token">New token</h2>
<form method="post" action="${place.base}/tokens">${formToken(place)}
<p><label>Name <input name="name" required maxlength="100" autocomplete="off"></label></p>
<fieldset><legend>Scopes</legend>
${scopes.map((scope) => html`<label><input type="checkbox" name="scopes" value="${scope}"${defaults.includes(scope) ? html` checked` : ''}> ${scope}</label> `)}
</fieldset>
<p><label>Expires <select name="expires_in_days"><option value="30">in 30 days</option><option value="90" selected>in 90 days</option><option value="365">in a year</option><option value="">never</option></select></label></p>
<p><button type="submit">Create token</button></p>
</form>
</section>
<section aria-labelledby="tokens">
<h2 id="tokens">Your tokens</h2>
${tokens.length === 0 ? html`<p>No tokens yet.</p>` : html`<table>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="hidden">Revoke</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`}
</section>`);
}

/** The new token, shown this once: the page is not kept (no-store) and the list never shows it again. */
export const tokenCreatedPage = (place: Place, name: string, token: string) =>
  layout(place, 'Your new token', html`<p>The token <strong>${name}</strong>. Copy it now and keep it somewhere safe: it is shown this once, and only its prefix afterwards.</p>
<p><input id="new-token-value" class="secret" readonly value="${token}" aria-label="The new token" size="70"> <button type="button" data-copy="new-token-value">Copy</button></p>
<p><a class="button" href="${place.base}/tokens">I have stored it</a></p>`);

export const errorPage = (place: Place, title: string, message: string) =>
  layout(place, title, html`<p role="alert">${message}</p><p><a href="${place.base}/">Back to the dashboard</a></p>`);
