/**
 * The operators' routes (docs/dashboard.md, "Operators"): the accounts, one account's roles and
 * states (approve a seller, restrict, suspend, moderator, operator) and its tokens (revoke one), and
 * the audit log. Each change is an admin action run through staff.ts (then logged). An operator only.
 */
import type { Static } from '@sinclair/typebox';
import { ApiError } from '../errors.js';
import type { AdminAccountSchema, AdminTokenListSchema } from '../admin/schemas.js';
import { sellerStatuses } from '../domain/accounts.js';
import { auditOf, type AuditEntry } from '../ports/audit.js';
import { html, type Html } from './html.js';
import { layout, type Place } from './pages.js';
import { page, redirect } from './respond.js';
import type { DashboardRoute } from './routes.js';
import { staffAct, staffRead } from './staff.js';

type Account = Static<typeof AdminAccountSchema>;
type Tokens = Static<typeof AdminTokenListSchema>['data'];

const formToken = (place: Place) => html`<input type="hidden" name="form_token" value="${place.formToken ?? ''}">`;
const roles = (a: Account) => [a.is_operator && 'operator', a.is_moderator && 'moderator', a.seller_status === 'approved' ? 'seller' : `seller ${a.seller_status}`, a.is_restricted && 'restricted', a.is_suspended && 'suspended'].filter(Boolean).join(', ');
const at = (when: string | null) => (when ? html`<time datetime="${when}">${when.slice(0, 16).replace('T', ' ')} UTC</time>` : 'never');

function accountsPage(place: Place, accounts: readonly Account[], total: number, next: string | null): Html {
  return layout(place, 'Accounts', html`<p>${total} accounts, by username.</p>
<table><thead><tr><th scope="col">Username</th><th scope="col">Roles and state</th><th scope="col">Created</th></tr></thead>
<tbody>${accounts.map((a) => html`<tr><td><a href="${place.base}/accounts/${encodeURIComponent(a.username)}">${a.username}</a></td><td>${roles(a)}</td><td>${at(a.created_at)}</td></tr>`)}</tbody></table>
${next && html`<p><a href="${place.base}/accounts?cursor=${encodeURIComponent(next)}">Next page</a></p>`}`);
}

const flag = (name: string, label: string, on: boolean) => html`<label><input type="checkbox" name="${name}" value="true"${on ? html` checked` : ''}> ${label}</label> `;

function accountPage(place: Place, a: Account, tokens: Tokens): Html {
  const self = `${place.base}/accounts/${encodeURIComponent(a.username)}`;
  return layout(place, a.username, html`<p>${roles(a)}; ${a.storage_bytes} bytes stored.</p>
<form method="post" action="${self}">${formToken(place)}
<p><label>Seller status <select name="seller_status">${sellerStatuses.map((status) => html`<option${status === a.seller_status ? html` selected` : ''}>${status}</option>`)}</select></label></p>
<fieldset><legend>Roles and restrictions</legend>
${flag('is_moderator', 'Moderator', a.is_moderator)}${flag('is_operator', 'Operator', a.is_operator)}${flag('is_restricted', 'Restricted (cannot create or change listings)', a.is_restricted)}${flag('is_suspended', 'Suspended (refused everywhere)', a.is_suspended)}
</fieldset>
<p><label>Note for the audit log <input name="note" maxlength="500" size="50"></label></p>
<p><button type="submit">Save</button></p></form>
<h2>Developer tokens</h2>
${tokens.length === 0 ? html`<p>No tokens.</p>` : html`<table><thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Last used</th><th scope="col"><span class="hidden">Revoke</span></th></tr></thead>
<tbody>${tokens.map((t) => html`<tr><td>${t.name}</td><td><code>${t.prefix}…</code></td><td>${at(t.last_used_at)}</td>
<td><form method="post" action="${self}/tokens/${t.id}/revoke" data-confirm="${`Revoke ${a.username}’s token “${t.name}”?`}">${formToken(place)}<button type="submit">Revoke</button></form></td></tr>`)}</tbody></table>`}
<p><a href="${place.base}/accounts">All accounts</a></p>`);
}

function auditPage(place: Place, entries: readonly AuditEntry[], next: string | null): Html {
  return layout(place, 'Audit log', html`<p>Every moderator’s and operator’s action in the dashboard, newest first.</p>
${entries.length === 0 ? html`<p>Nothing yet.</p>` : html`<table><thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">On</th><th scope="col">Reason</th></tr></thead>
<tbody>${entries.map((e) => html`<tr><td>${at(e.at)}</td><td>${e.actor}</td><td>${e.action}</td><td>${e.subject}</td><td>${e.reason ?? ''}</td></tr>`)}</tbody></table>`}
${next && html`<p><a href="${place.base}/audit?before=${encodeURIComponent(next)}">Older</a></p>`}`);
}

const auditPageSize = 50;

export const accountRoutes: DashboardRoute[] = [
  {
    method: 'GET',
    path: '/accounts',
    role: 'operator',
    async handle(request) {
      const cursor = request.query.get('cursor');
      const list = await staffRead<{ data: Account[]; total: number; next_cursor: string | null }>(request, 'accounts', {}, { limit: 50, ...(cursor ? { cursor } : {}) });
      return page(200, accountsPage(request.place, list.data, list.total, list.next_cursor));
    },
  },
  {
    method: 'GET',
    path: '/accounts/{account}',
    role: 'operator',
    async handle(request) {
      const params = { account: request.params.account! };
      const [account, tokens] = await Promise.all([staffRead<Account>(request, 'account', params), staffRead<{ data: Tokens }>(request, 'tokens', params)]);
      return page(200, accountPage(request.place, account, tokens.data));
    },
  },
  {
    method: 'POST',
    path: '/accounts/{account}',
    role: 'operator',
    async handle(request) {
      const { form, ctx, place } = request;
      const account = await staffRead<Account>(request, 'account', { account: request.params.account! });
      const on = (name: string) => form.get(name) === 'true';
      const changes = { seller_status: form.get('seller_status') ?? account.seller_status, is_moderator: on('is_moderator'), is_operator: on('is_operator'), is_restricted: on('is_restricted'), is_suspended: on('is_suspended') };
      // An operator keeps their own role: taking it away is another operator's decision, so there is always one.
      if (account.id === ctx.caller.account.id && (!changes.is_operator || changes.is_suspended)) throw new ApiError('INVALID_INPUT', 'You cannot take away your own operator role or suspend yourself: ask another operator.');
      await staffAct(request, 'update-account', { account: account.id }, changes, `account ${account.username}`, form.get('note')?.trim());
      return redirect(`${place.base}/accounts/${encodeURIComponent(account.username)}`);
    },
  },
  {
    method: 'POST',
    path: '/accounts/{account}/tokens/{token}/revoke',
    role: 'operator',
    async handle(request) {
      const { account, token } = request.params as { account: string; token: string };
      await staffAct(request, 'revoke-token', { account, token }, undefined, `account ${account} token ${token}`);
      return redirect(`${request.place.base}/accounts/${encodeURIComponent(account)}`);
    },
  },
  {
    method: 'GET',
    path: '/audit',
    role: 'operator',
    async handle(request) {
      const audit = auditOf(request.parts.ports.storage);
      if (!audit) throw new ApiError('NOT_FOUND', 'This storage keeps no audit log (storage.audit).');
      const [beforeAt, beforeId] = (request.query.get('before') ?? '').split('|');
      const entries = await audit.listAudit(auditPageSize + 1, beforeAt && beforeId ? { at: beforeAt, id: beforeId } : undefined);
      const shown = entries.slice(0, auditPageSize);
      const last = shown[shown.length - 1];
      return page(200, auditPage(request.place, shown, entries.length > auditPageSize && last ? `${last.at}|${last.id}` : null));
    },
  },
];
