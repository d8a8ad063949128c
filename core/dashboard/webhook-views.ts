/**
 * The seller's webhook endpoints, as HTML (docs/dashboard.md, "Webhooks"): the list with the New
 * endpoint form, the signing secret shown once, and an endpoint's page (its settings, enable or
 * disable, a test event, a new secret, delete) with its deliveries log. Every value a seller typed
 * (a URL, a description) goes through the escaping `html` template, in a table cell inside <bdi>.
 */
import { everyEventType, webhookEventTypes, webhookEventTypeNames } from '../domain/webhook-events.js';
import type { WebhookDelivery, WebhookEndpoint } from '../schemas/webhook.js';
import { html, type Html } from './html.js';
import { refusal } from './listing-views.js';
import { formToken, layout, when, type Place } from './pages.js';

/** An endpoint's fields as the form holds them: text, as typed. */
export interface EndpointFields {
  url: string;
  description: string;
  event_types: string[];
}

export const emptyEndpoint: EndpointFields = { url: '', description: '', event_types: [everyEventType] };

/** Text typed, shown again: a NUL (which the operations refuse) is never sent back in the page. */
const typed = (text: string) => text.replace(/\u0000/g, '\ufffd');

const eventsText = (types: readonly string[]) => (types.includes(everyEventType) ? 'every event' : types.join(', '));

/** The fields of an endpoint's form: new and edit alike. */
function endpointFieldset(fields: EndpointFields): Html {
  const box = (type: string, label: Html | string) =>
    html`<label><input type="checkbox" name="event_types" value="${type}"${fields.event_types.includes(type) ? html` checked` : ''}> ${label}</label><br>`;
  return html`<p><label>URL <input name="url" type="url" required maxlength="2048" value="${typed(fields.url)}" size="60" placeholder="https://example.com/hooks/marketkit"></label></p>
<p><label>Description <input name="description" maxlength="500" value="${typed(fields.description)}" size="60"></label> <small>optional</small></p>
<fieldset><legend>Events</legend>
${box(everyEventType, html`<strong>Every event</strong> (<code>*</code>, new types included)`)}
${webhookEventTypeNames.map((type) => box(type, html`<code>${type}</code>: ${webhookEventTypes[type]}`))}
</fieldset>`;
}

export function webhooksPage(place: Place, endpoints: readonly WebhookEndpoint[], fields: EndpointFields = emptyEndpoint, message: string | null = null): Html {
  const rows = endpoints.map(
    (e) => html`<tr>
<td><a href="${place.base}/webhooks/${e.id}"><bdi>${e.url}</bdi></a>${e.description && html`<br><small><bdi>${e.description}</bdi></small>`}</td><td>${eventsText(e.event_types)}</td><td>${e.enabled ? 'yes' : html`no <small>(<bdi>${e.disabled_reason ?? ''}</bdi>)</small>`}</td><td>${when(e.created_at, '')}</td>
</tr>`,
  );
  return layout(place, 'Webhooks', html`<p>Each endpoint gets the events it subscribes to, signed with its own secret (Standard Webhooks); see docs/webhooks.md.</p>
<section aria-labelledby="endpoints">
<h2 id="endpoints">Your endpoints</h2>
${endpoints.length === 0 ? html`<p>No endpoints yet.</p>` : html`<table>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Enabled</th><th scope="col">Created</th></tr></thead>
<tbody>${rows}</tbody>
</table>`}
</section>
<section aria-labelledby="new-endpoint">
<h2 id="new-endpoint">New endpoint</h2>
${refusal(message)}
<form method="post" action="${place.base}/webhooks">${formToken(place)}
${endpointFieldset(fields)}
<p><button type="submit">Create endpoint</button></p>
</form>
</section>`);
}

/** A signing secret, shown this once (a new endpoint's, or a rotation's): the page is not kept (no-store) and no page shows it again. */
export const secretPage = (place: Place, endpoint: WebhookEndpoint, secret: string, rotated: boolean) =>
  layout(place, rotated ? 'Your new signing secret' : 'Your new endpoint', html`<p>The signing secret of <bdi>${endpoint.url}</bdi>. Copy it now and keep it where your receiver reads it: it is <strong>shown once</strong>, never again.${rotated && ' The previous secret keeps signing beside it for 24 hours.'}</p>
<p><input id="new-secret-value" class="secret" readonly value="${secret}" aria-label="The signing secret" size="60"> <button type="button" data-copy="new-secret-value">Copy</button></p>
<p><a class="button" href="${place.base}/webhooks/${endpoint.id}">I have stored it</a></p>`);

export interface DeliveryPage {
  data: WebhookDelivery[];
  pagination: { limit: number; offset: number; total: number; has_more: boolean };
}

export const doneNotes = {
  saved: 'Endpoint saved.',
  unchanged: 'Nothing changed.',
  enabled: 'Endpoint enabled.',
  disabled: 'Endpoint disabled: it gets no events until enabled.',
  tested: 'A webhook.test event is queued: its delivery shows below.',
  redelivered: 'Queued again: a new delivery of the same event shows below.',
} as const;
export type DoneNote = keyof typeof doneNotes;

const deliveryLabels: Record<WebhookDelivery['status'], string> = { pending: 'Pending', retrying: 'Retrying', succeeded: 'Succeeded', failed: 'Failed' };

/** The last attempt's answer: its status code, or why there was none. */
function lastResponse(delivery: WebhookDelivery): Html | string {
  const last = delivery.attempts.at(-1);
  if (!last) return 'not tried yet';
  return html`${last.status_code !== null ? html`HTTP ${last.status_code}` : html`<bdi>${last.error ?? 'no answer'}</bdi>`} <small>(${last.latency_ms} ms)</small>`;
}

function deliveriesTable(place: Place, endpointId: string, page: DeliveryPage): Html {
  const rows = page.data.map(
    (d) => html`<tr>
<td><code>${d.event_type}</code>${d.redelivery_of && html` <small>(redelivery)</small>`}</td><td>${deliveryLabels[d.status]}${d.next_attempt_at && html`<br><small>next ${when(d.next_attempt_at, '')}</small>`}</td><td>${d.attempts.length}</td><td>${lastResponse(d)}</td><td>${when(d.attempts.at(-1)?.at ?? d.created_at, '')}</td>
<td><form method="post" action="${place.base}/webhooks/${endpointId}/deliveries/${d.id}/redeliver">${formToken(place)}<button type="submit">Redeliver</button></form></td>
</tr>`,
  );
  const { offset, limit, total, has_more } = page.pagination;
  const link = (at: number, rel: string, label: string) => html`<a href="${place.base}/webhooks/${endpointId}${at > 0 ? `?offset=${at}` : ''}" rel="${rel}">${label}</a>`;
  return html`<p>${total} deliver${total === 1 ? 'y' : 'ies'}, newest first.</p>
${page.data.length === 0 ? html`<p>No deliveries yet.</p>` : html`<table>
<thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last response</th><th scope="col">Time</th><th scope="col"><span class="hidden">Redeliver</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`}
${(offset > 0 || has_more) && html`<nav aria-label="Pages" class="pager">${offset > 0 && link(Math.max(0, offset - limit), 'prev', 'Previous')}${has_more && link(offset + limit, 'next', 'Next')}</nav>`}`;
}

export interface EndpointView {
  endpoint: WebhookEndpoint;
  deliveries: DeliveryPage;
  fields: EndpointFields;
  note: DoneNote | null;
  message: string | null;
}

export function endpointPage(place: Place, view: EndpointView): Html {
  const { endpoint: e } = view;
  const action = (path: string, label: string, confirm?: string) =>
    html`<form method="post" action="${place.base}/webhooks/${e.id}/${path}"${confirm && html` data-confirm="${confirm}"`}>${formToken(place)}<button type="submit">${label}</button></form>`;
  return layout(place, 'Webhook endpoint', html`${view.note && html`<p role="status">${doneNotes[view.note]}</p>`}${refusal(view.message)}
<dl class="fields"><dt>URL</dt><dd><bdi>${e.url}</bdi></dd><dt>Events</dt><dd>${eventsText(e.event_types)}</dd>
<dt>Enabled</dt><dd>${e.enabled ? 'yes' : html`no: <bdi>${e.disabled_reason ?? ''}</bdi> ${when(e.disabled_at, '')}`}</dd><dt>Created</dt><dd>${when(e.created_at, '')}</dd>
${e.previous_secret_expires_at && html`<dt>Previous secret</dt><dd>signs beside the new one until ${when(e.previous_secret_expires_at, '')}</dd>`}</dl>
<div class="decision">
${action(e.enabled ? 'disable' : 'enable', e.enabled ? 'Disable' : 'Enable')}
${e.enabled && action('test', 'Send a test event')}
${action('rotate-secret', 'New signing secret', 'Make a new signing secret? The current one keeps signing beside it for 24 hours.')}
${action('delete', 'Delete endpoint', `Delete this endpoint and its deliveries log? It gets no more events.`)}
</div>
<section aria-labelledby="deliveries">
<h2 id="deliveries">Deliveries</h2>
${deliveriesTable(place, e.id, view.deliveries)}
</section>
<section aria-labelledby="edit">
<h2 id="edit">Edit</h2>
<form method="post" action="${place.base}/webhooks/${e.id}">${formToken(place)}
${endpointFieldset(view.fields)}
<p><button type="submit">Save</button></p>
</form>
</section>
<p><a href="${place.base}/webhooks">All endpoints</a></p>`);
}
