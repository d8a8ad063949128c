/**
 * The moderators' pages (docs/dashboard.md, "Moderators"): the review queue, a listing's review and
 * a version's review with what it changes. Every value a seller typed is rendered as text.
 */
import type { Asset, Image } from '../schemas/asset.js';
import type { VersionView } from '../schemas/version.js';
import type { VersionReviewReport } from '../moderation/version-review.js';
import { html, type Html } from './html.js';
import { layout, type Place } from './pages.js';

const formToken = (place: Place) => html`<input type="hidden" name="form_token" value="${place.formToken ?? ''}">`;

/** One queue row, with what the page read beside the item (its seller, its primary image, its file). */
export interface QueueRow {
  kind: 'listing' | 'version';
  id: string;
  title: string;
  seller: string;
  price: string;
  submitted: string;
  file: { size: number; sha256: string | null } | null;
  image: string | null;
  href: string;
}

const size = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} B`);

/** A stored time (ISO, UTC) to the minute, saying UTC. */
const utc = (iso: string) => html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>`;

export const priceOf = (asset: Pick<Asset, 'pricing_type' | 'price'>) => (asset.pricing_type === 'free' ? 'free' : `${asset.pricing_type === 'pwyw' ? 'pay what you want, from ' : ''}${(asset.price ?? 0).toFixed(2)}`);

const kinds = [
  ['', 'Everything'],
  ['listing', 'New listings'],
  ['version', 'New versions'],
] as const;

export function queuePage(place: Place, rows: readonly QueueRow[], total: number, kind: string, next: string | null): Html {
  const tab = ([value, label]: readonly [string, string]) =>
    html`<a href="${place.base}/review${value ? `?kind=${value}` : ''}"${value === kind ? html` aria-current="page"` : ''}>${label}</a>`;
  return layout(place, 'Review queue', html`<nav class="tabs" aria-label="What to show">${kinds.map(tab)}</nav>
<p>${total} waiting, oldest submission first.</p>
${rows.length === 0 ? html`<p>Nothing waits for review.</p>` : html`<table>
<thead><tr><th scope="col">Image</th><th scope="col">What</th><th scope="col">Seller</th><th scope="col">Price</th><th scope="col">File</th><th scope="col">Submitted</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr>
<td>${row.image ? html`<img src="${row.image}" alt="" width="96" height="64" class="thumb">` : html`<span class="muted">none</span>`}</td>
<td><a href="${row.href}">${row.title}</a><br><span class="muted">${row.kind === 'version' ? 'new version' : 'new listing'}</span></td>
<td>${row.seller}</td><td>${row.price}</td>
<td>${row.file ? html`${size(row.file.size)}${row.file.sha256 && html`<br><code class="digest">${row.file.sha256}</code>`}` : html`<span class="muted">no file</span>`}</td>
<td><time datetime="${row.submitted}">${row.submitted.slice(0, 16).replace('T', ' ')} UTC</time></td>
</tr>`,
  )}</tbody>
</table>`}
${next && html`<p><a href="${place.base}/review?${new URLSearchParams({ ...(kind ? { kind } : {}), cursor: next }).toString()}">Next page</a></p>`}`);
}

const gallery = (images: readonly Image[]) =>
  images.length === 0 ? html`<p class="muted">No images.</p>` : html`<div class="gallery">${images.map((image, i) => html`<figure><img src="${image.public_url}" alt="${`Image ${i + 1}`}"><figcaption>${image.is_primary ? 'Primary' : `Image ${i + 1}`}</figcaption></figure>`)}</div>`;

/** A decision's form: its reason field when the action takes one (the seller reads it). */
function decision(place: Place, action: string, label: string, reason: boolean, confirm?: string): Html {
  return html`<form method="post" action="${action}" class="decision"${confirm ? html` data-confirm="${confirm}"` : ''}>${formToken(place)}
${reason && html`<p><label>Reason (the seller reads it) <textarea name="reason" required maxlength="1000" rows="2"></textarea></label></p>`}
<button type="submit">${label}</button></form>`;
}

const fields = (asset: Asset, seller: string) => html`<dl class="fields">
<dt>Title</dt><dd>${asset.title}</dd><dt>Slug</dt><dd><code>${asset.slug}</code></dd><dt>Seller</dt><dd>${seller}</dd>
<dt>Status</dt><dd>${asset.status}</dd><dt>Price</dt><dd>${priceOf(asset)}</dd><dt>Version</dt><dd>${asset.version}</dd>
<dt>Tags</dt><dd>${asset.tags.join(', ') || '—'}</dd><dt>Visibility</dt><dd>${asset.visibility}</dd>
<dt>Description</dt><dd class="prose">${asset.description ?? '—'}</dd></dl>`;

const fileFacts = (file: { file_size: number; sha256?: string | null; content_type?: string } | null) =>
  file ? html`<p>${size(file.file_size)}${file.content_type && html`, ${file.content_type}`}; SHA-256 <code class="digest">${file.sha256 ?? 'not kept'}</code></p>` : html`<p class="muted">No file.</p>`;

export function listingReviewPage(place: Place, asset: Asset, images: readonly Image[], file: { file_size: number; sha256?: string | null; content_type: string } | null, seller: string): Html {
  const at = `${place.base}/review/listings/${asset.id}`;
  const pending = asset.status === 'pending';
  return layout(place, `Review: ${asset.title}`, html`${fields(asset, seller)}
<h2>File</h2>${fileFacts(file)}
<h2>Gallery</h2>${gallery(images)}
<h2>Decision</h2>
${pending ? html`<p>Approving publishes the listing now: a listing goes only from pending to published, and its time, if any, was the seller’s (scheduled_publish_at${asset.scheduled_publish_at ? html`, here ${utc(asset.scheduled_publish_at)}` : ''}: a scheduled listing enters review at that time).</p>
${decision(place, `${at}/approve`, 'Approve and publish', false)}
${decision(place, `${at}/request-changes`, 'Request changes', true)}
${decision(place, `${at}/reject`, 'Reject', true, 'Reject this listing? The seller reads the reason.')}` : html`<p>This listing is ${asset.status}: nothing waits for a decision.</p>`}
${asset.status === 'published' && html`${decision(place, `${at}/archive`, 'Archive', false, 'Take this listing off the marketplace?')}
${decision(place, `${at}/rollback`, 'Roll back to the previous version', true, 'Make the previous version live again?')}`}
<p><a href="${place.base}/review">Back to the queue</a></p>`);
}

const shown = (value: unknown) => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

/**
 * "Approve, live at": the approve-version action with the moderator's time. A datetime-local has
 * no zone: the page states UTC and the route sends the time as UTC (review-pages.ts, utcOfLocal).
 */
function approveAt(place: Place, action: string, now: string): Html {
  return html`<form method="post" action="${action}" class="decision">${formToken(place)}
<p><label>Live at, in UTC (Coordinated Universal Time, now ${now.slice(0, 16).replace('T', ' ')}) <input type="datetime-local" name="release_at" required min="${now.slice(0, 16)}"></label></p>
<button type="submit">Approve, live at this time</button></form>`;
}

export function versionReviewPage(place: Place, report: VersionReviewReport, seller: string, now: string): Html {
  const { version, listing } = report;
  const at = `${place.base}/review/versions/${version.id}`;
  const pending = version.status === 'pending';
  const sellerAhead = version.release_at !== null && version.release_at > now;
  const sellersTime = version.release_at && html`<p>The seller asked for release at ${utc(version.release_at)}${sellerAhead ? ': Approve schedules it for then' : ', already past: Approve makes it live at once'}; a time below replaces it.</p>`;
  const entries = (label: string, list: readonly { name: string }[]) => list.length > 0 && html`<h3>${label} (${list.length})</h3><ul class="entries">${list.slice(0, 200).map((entry) => html`<li><code>${entry.name}</code></li>`)}</ul>`;
  return layout(place, `Review: ${listing.title} ${version.version}`, html`<p>A new version of <strong>${listing.title}</strong> by ${seller}: live <strong>${listing.version}</strong>, proposed <strong>${version.version}</strong> (${version.status}).</p>
<h2>Release notes</h2><p class="prose">${version.release_notes || '—'}</p>
<h2>What changes</h2>
${report.field_changes.length === 0 ? html`<p>No field changes.</p>` : html`<table><thead><tr><th scope="col">Field</th><th scope="col">Live</th><th scope="col">Proposed</th></tr></thead>
<tbody>${report.field_changes.map((change) => html`<tr><td>${change.field}</td><td>${shown(change.live)}</td><td>${shown(change.proposed)}</td></tr>`)}</tbody></table>`}
<h2>Files</h2><p>Live:</p>${fileFacts(report.files.live)}<p>Proposed:</p>${fileFacts(report.files.proposed)}
${report.archive.kind === 'zip' ? html`${entries('Added', report.archive.added)}${entries('Removed', report.archive.removed)}${entries('Changed', report.archive.changed)}` : html`<p class="muted">Archive contents not compared: ${report.archive.reason ?? report.archive.kind}.</p>`}
<h2>Gallery</h2>${report.gallery.proposed ? html`<p>Proposed:</p>${gallery(report.gallery.proposed)}<p>Live now:</p>` : html`<p>Keeps the listing's images:</p>`}${gallery(report.gallery.live)}
<h2>Decision</h2>
${pending ? html`${sellersTime}${decision(place, `${at}/approve`, sellerAhead ? 'Approve (live at the seller’s time)' : 'Approve and make it live', false)}
${approveAt(place, `${at}/approve`, now)}
${decision(place, `${at}/request-changes`, 'Request changes', true)}
${decision(place, `${at}/reject`, 'Reject', true, 'Reject this version? The live listing stays as it is.')}` : html`<p>This version is ${version.status}${version.status === 'scheduled' && version.release_at ? html`: live at ${utc(version.release_at)}` : ''}${version.review?.reason ? html`: “${version.review.reason}”` : ''}.</p>`}
<p><a href="${place.base}/review">Back to the queue</a></p>`);
}

export type { VersionView };
