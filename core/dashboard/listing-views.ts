/**
 * The seller's listings, as HTML (docs/dashboard.md, "Listings"): the list with its tabs by status
 * and its pages, the new-listing form, and the fields every listing form shares. Every value a
 * seller typed goes through the escaping `html` template, and in a table cell inside <bdi>, so a
 * title can neither become markup nor reorder the text around it. The listing's own page is
 * listing-detail-views.ts.
 */
import { assetStatuses, type AssetStatus } from '../domain/asset-states.js';
import type { Asset, Category } from '../schemas/asset.js';
import { html, type Html } from './html.js';
import type { ListingFields } from './listing-forms.js';
import { formToken, layout, when, type Place } from './pages.js';

export const statusLabels: Record<AssetStatus, string> = {
  draft: 'Draft',
  pending: 'Pending review',
  scheduled: 'Scheduled',
  published: 'Published',
  rejected: 'Rejected',
  changes_requested: 'Changes requested',
  archived: 'Archived',
};

/** What the list operation answers, as far as the page reads it. */
export interface ListingsList {
  data: Asset[];
  pagination: { total: number; has_more: boolean; next_cursor: string | null };
}

export interface ListingCounts {
  total: number;
  by_status: Record<AssetStatus, number>;
}

/** Where the list is: its tab, the cursor of this page, and the cursors of the pages before it (the first page's is ''). */
export interface ListPlace {
  status: AssetStatus | null;
  /** The search (listAssets' q), as typed; null for none. */
  q: string | null;
  cursor: string | null;
  back: string[];
}

/** Text the seller typed, shown again: a NUL (which the operations refuse) is never sent back in the page. */
const typed = (text: string) => text.replace(/\u0000/g, '\ufffd');

export function priceText(asset: Pick<Asset, 'pricing_type' | 'price'>): string {
  if (asset.pricing_type === 'free') return 'Free';
  const price = (asset.price ?? 0).toFixed(2);
  return asset.pricing_type === 'pwyw' ? `${price} or more` : price;
}

/** The link of a list page: its tab, its search, its cursor and the trail back. */
function listHref(place: Place, at: ListPlace): string {
  const query = new URLSearchParams();
  if (at.status) query.set('status', at.status);
  if (at.q !== null) query.set('q', at.q);
  if (at.cursor) query.set('cursor', at.cursor);
  if (at.back.length) query.set('back', at.back.join('.'));
  const text = query.toString();
  return `${place.base}/listings${text ? `?${text}` : ''}`;
}

/** The tabs keep the search; their counts are the seller's totals, searched or not. */
function tabs(place: Place, counts: ListingCounts, at: ListPlace): Html {
  const tab = (status: AssetStatus | null, label: string, count: number) =>
    html`<li><a href="${listHref(place, { status, q: at.q, cursor: null, back: [] })}"${status === at.status ? html` aria-current="page"` : ''}>${label} <span class="count">${count}</span></a></li>`;
  return html`<nav aria-label="Listings by status" class="tabs"><ul>
${tab(null, 'All', counts.total)}
${assetStatuses.map((status) => tab(status, statusLabels[status], counts.by_status[status]))}
</ul></nav>`;
}

function pager(place: Place, list: ListingsList, at: ListPlace): Html {
  const previous = at.back.length ? { ...at, cursor: at.back.at(-1) || null, back: at.back.slice(0, -1) } : null;
  const next = list.pagination.has_more && list.pagination.next_cursor ? { ...at, cursor: list.pagination.next_cursor, back: [...at.back, at.cursor ?? ''] } : null;
  if (!previous && !next) return html``;
  return html`<nav aria-label="Pages" class="pager">
${previous && html`<a href="${listHref(place, previous)}" rel="prev">Previous</a>`}
${at.back.length > 1 && html`<a href="${listHref(place, { ...at, cursor: null, back: [] })}">Newest</a>`}
${next && html`<a href="${listHref(place, next)}" rel="next">Next</a>`}
</nav>`;
}

/** The search form: a GET of this list, in the tab it is on. */
function searchForm(place: Place, at: ListPlace): Html {
  return html`<form method="get" action="${place.base}/listings" role="search">
${at.status && html`<input type="hidden" name="status" value="${at.status}">`}
<label>Search titles and slugs <input type="search" name="q" maxlength="100" value="${typed(at.q ?? '')}"></label>
<button type="submit">Search</button>${at.q !== null && html` <a href="${listHref(place, { ...at, q: null, cursor: null, back: [] })}">Clear the search</a>`}
</form>`;
}

/** The list's page; `message`, an operation's refusal of the search (its q), shown above the form. */
export function listingsPage(place: Place, counts: ListingCounts, list: ListingsList, at: ListPlace, message: string | null = null): Html {
  const rows = list.data.map(
    (asset) => html`<tr>
<td><a href="${place.base}/listings/${asset.id}"><bdi>${asset.title}</bdi></a></td><td><code><bdi>${asset.slug}</bdi></code></td><td>${statusLabels[asset.status]}</td><td>${priceText(asset)}</td><td>${when(asset.updated_at, '')}</td>
</tr>`,
  );
  const shown = at.status ? statusLabels[at.status].toLowerCase() : 'all';
  const matching = at.q !== null && html` matching <q><bdi>${typed(at.q)}</bdi></q>`;
  const empty = at.q !== null ? html`<p>No listing matches the search.</p>` : html`<p>No listings here.</p>`;
  return layout(place, 'Listings', html`<p><a class="button" href="${place.base}/listings/new">New listing</a></p>
${tabs(place, counts, at)}
${searchForm(place, at)}
${message && html`<p role="alert">${message}</p>`}
<p>${list.pagination.total} ${shown} listing${list.pagination.total === 1 ? '' : 's'}${matching}, newest first.</p>
${list.data.length === 0 ? empty : html`<table>
<thead><tr><th scope="col">Title</th><th scope="col">Slug</th><th scope="col">Status</th><th scope="col">Price</th><th scope="col">Updated</th></tr></thead>
<tbody>${rows}</tbody>
</table>`}
${pager(place, list, at)}`);
}

const option = (value: string, label: string, current: string) => html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;

/** The fields of a listing's form: new and edit alike. */
export function listingFieldset(fields: ListingFields, categories: readonly Category[]): Html {
  return html`<p><label>Title <input name="title" required minlength="3" maxlength="200" value="${typed(fields.title)}" size="60"></label></p>
<p><label>Slug <input name="slug" required maxlength="100" pattern="[a-z0-9\\-]+" value="${typed(fields.slug)}" size="40"></label> <small>lowercase letters, digits and hyphens; unique across the marketplace</small></p>
<p><label>Description<br><textarea name="description" rows="8" cols="70" maxlength="10000">${typed(fields.description)}</textarea></label></p>
<p><label>Pricing <select name="pricing_type">${option('free', 'Free', fields.pricing_type)}${option('fixed', 'Fixed price', fields.pricing_type)}${option('pwyw', 'Pay what you want (price is the minimum)', fields.pricing_type)}</select></label>
<label>Price <input name="price" inputmode="decimal" value="${typed(fields.price)}" size="10"></label></p>
<p><label>Tags <input name="tags" value="${typed(fields.tags)}" size="60"></label> <small>separated by commas, at most 20</small></p>
<p><label>Visibility <select name="visibility">${option('public', 'Public', fields.visibility)}${option('unlisted', 'Unlisted', fields.visibility)}${option('private', 'Private', fields.visibility)}</select></label></p>
<p><label>Category <select name="category_id">${option('', 'None', fields.category_id)}${categories.map((category) => option(category.id, category.name, fields.category_id))}</select></label></p>
${fields.scheduled_publish_at !== null && html`<p><label>Publish at (UTC) <input type="datetime-local" name="scheduled_publish_at" value="${typed(fields.scheduled_publish_at)}"></label> <small>empty: at approval</small></p>`}`;
}

/** A refusal, shown above the form it refused. */
export const refusal = (message: string | null) => message && html`<p role="alert">${message}</p>`;

export function newListingPage(place: Place, fields: ListingFields, categories: readonly Category[], message: string | null = null): Html {
  return layout(place, 'New listing', html`${refusal(message)}
<p>A new listing starts as a draft: add its file, then submit it for review.</p>
<form method="post" action="${place.base}/listings">${formToken(place)}
${listingFieldset(fields, categories)}
<p><button type="submit">Create draft</button> <a href="${place.base}/listings">Cancel</a></p>
</form>`);
}
