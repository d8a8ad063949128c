/**
 * One listing's page, as HTML (docs/dashboard.md, "Listings"): its fields in the edit form, its
 * file and gallery (in order, the primary marked, each image's moves), Submit for review, the
 * review history (the last decision and the earlier ones, each with its reason), and for a
 * published listing its versions (New version, withdraw, submit; each with its decisions). Every
 * value goes through the escaping `html` template; destructive buttons carry data-confirm (the
 * script asks first).
 */
import { statusesAllowing } from '../domain/asset-states.js';
import { openVersionStatuses, type VersionStatus } from '../domain/version-states.js';
import type { AssetDetail, Category } from '../schemas/asset.js';
import type { VersionView } from '../schemas/version.js';
import { html, type Html } from './html.js';
import type { ListingFields } from './listing-forms.js';
import { listingFieldset, refusal, statusLabels } from './listing-views.js';
import { formToken, layout, when, type Place } from './pages.js';
import { listingUploads, tusScript, versionUpload } from './upload-views.js';

/** What the page was told after a redirect (`?done=`): fixed sentences, never text from the request. */
export const doneNotes = {
  created: 'Draft created.',
  saved: 'Saved.',
  unchanged: 'Nothing changed.',
  submitted: 'Submitted.',
  version: 'Version created: upload its file (below, or with the API or marketkit upload), then submit it.',
  version_submitted: 'Version submitted for review.',
  withdrawn: 'Version withdrawn.',
  uploaded: 'File uploaded and confirmed.',
  image_added: 'Image added to the gallery.',
  arranged: 'Gallery order saved.',
  version_uploaded: 'The version’s file is uploaded and confirmed: submit it when ready.',
} as const;
export type DoneNote = keyof typeof doneNotes;

/** Everything the listing's page shows. */
export interface ListingView {
  asset: AssetDetail;
  fields: ListingFields;
  categories: readonly Category[];
  /** The listing's versions, newest first: null unless it is published (or has versions) on a storage that keeps them. */
  versions: VersionView[] | null;
  note: DoneNote | null;
  /** A refusal, shown above the form (the values typed kept in `fields`). */
  message: string | null;
  /** The site's origin: an image kept on this site is shown by its path, from the page's own origin (the CSP's img-src 'self'). */
  siteOrigin: string;
}

const versionLabels: Record<VersionStatus, string> = {
  draft: 'Draft',
  pending: 'Pending review',
  approved: 'Live',
  changes_requested: 'Changes requested',
  rejected: 'Rejected',
  withdrawn: 'Withdrawn',
  superseded: 'Superseded',
  scheduled: 'Approved, scheduled',
};

const editable = new Set(['draft', 'rejected', 'changes_requested', 'published']);
const submittable = new Set(['draft', 'rejected', 'changes_requested']);

/** The statuses in which the gallery's order may change (the transition table's, as arrangeImages asks it). */
const arrangeable = new Set<string>(statusesAllowing('arrangeImages'));

/** The moves of a gallery image, each a POST form of its own (listing-pages.ts runs arrangeImages). */
export const imageMoves = { primary: 'Make primary', earlier: 'Move earlier', later: 'Move later' } as const;
export type ImageMove = keyof typeof imageMoves;

const fileName = (path: string) => path.slice(path.lastIndexOf('/') + 1);
const bytes = (size: number) => (size < 1024 ? `${size} bytes` : size < 1024 ** 2 ? `${(size / 1024).toFixed(1)} KiB` : `${(size / 1024 ** 2).toFixed(1)} MiB`);

const onSite = (url: string, siteOrigin: string) => (url.startsWith(`${siteOrigin}/`) ? url.slice(siteOrigin.length) : url);

function fileSection(place: Place, asset: AssetDetail, siteOrigin: string): Html {
  const file = asset.file;
  return html`<section aria-labelledby="file"><h2 id="file">File</h2>
${file
    ? html`<dl><dt>Name</dt><dd><code><bdi>${fileName(file.storage_path)}</bdi></code></dd><dt>Size</dt><dd>${bytes(file.file_size)}${file.file_size >= 1024 && ` (${file.file_size} bytes)`}</dd><dt>Type</dt><dd>${file.content_type}</dd>
<dt>SHA-256</dt><dd>${file.sha256 ? html`<code>${file.sha256}</code>` : 'not kept (confirmed before checksums were kept)'}</dd><dt>Confirmed</dt><dd>${when(file.confirmed_at, '')}</dd></dl>`
    : html`<p>No file yet.</p>`}
<h3>Gallery</h3>
${gallery(place, asset, siteOrigin)}
${listingUploads(place, asset)}
</section>`;
}

/** The gallery in its order, the primary marked; where the status allows, each image's moves (no JavaScript needed). */
function gallery(place: Place, asset: AssetDetail, siteOrigin: string): Html {
  const { images } = asset;
  if (!images.length) return html`<p>No images yet.</p>`;
  const movable = arrangeable.has(asset.status) && images.length > 1;
  const move = (imageId: string, number: number, to: ImageMove) =>
    html`<form method="post" action="${place.base}/listings/${asset.id}/images/${imageId}/${to}">${formToken(place)}<button type="submit" aria-label="${`${imageMoves[to]}: image ${number}`}">${imageMoves[to]}</button></form>`;
  return html`<ol class="gallery">${images.map((image, i) => html`<li><img src="${onSite(image.public_url, siteOrigin)}" alt="${image.is_primary ? 'Primary image' : `Image ${i + 1}`}" width="160" loading="lazy">
${image.is_primary ? html`<strong class="primary">Primary</strong>` : html`<span>Image ${i + 1}</span>`}
${movable && html`${!image.is_primary && move(image.id, i + 1, 'primary')}${i > 0 && move(image.id, i + 1, 'earlier')}${i < images.length - 1 && move(image.id, i + 1, 'later')}`}</li>`)}</ol>
${movable && html`<p><small>The primary image is the listing’s thumbnail; buyers see the gallery in this order.</small></p>`}`;
}

function reviewSection(place: Place, asset: AssetDetail): Html {
  const review = asset.review;
  const canSubmit = submittable.has(asset.status);
  return html`<section aria-labelledby="review"><h2 id="review">Review</h2>
${review
    ? html`<p>Last decision: <strong>${statusLabels[review.status]}</strong> ${when(review.reviewed_at, '')}</p>${review.reason && html`<blockquote><p class="reason">${review.reason}</p></blockquote>`}
${review.earlier.length > 0 && html`<h3>Earlier decisions</h3>
<ol class="history" reversed>${[...review.earlier].reverse().map((earlier) => html`<li><strong>${statusLabels[earlier.status]}</strong> ${when(earlier.reviewed_at, '')}${earlier.reason && html`: <span class="reason">${earlier.reason}</span>`}</li>`)}</ol>`}`
    : html`<p>No moderation decision yet.</p>`}
${canSubmit
    ? html`<form method="post" action="${place.base}/listings/${asset.id}/submit">${formToken(place)}<button type="submit">Submit for review</button>${!asset.file && html` <small>(a file is needed first)</small>`}</form>`
    : asset.status === 'pending' || asset.status === 'scheduled' ? html`<p>Waiting for a moderator${asset.scheduled_publish_at ? html` (scheduled for ${when(asset.scheduled_publish_at, '')})` : ''}.</p>` : ''}
</section>`;
}

/** A version's decision on one line: what, when, and the reason as text. */
const decisionText = (decision: { decision: string; reviewed_at: string; reason: string | null }): Html =>
  html`${decision.decision.replace('_', ' ')} ${when(decision.reviewed_at, '')}${decision.reason && html`: <span class="reason">${decision.reason}</span>`}`;

function versionRow(place: Place, assetId: string, version: VersionView): Html {
  const action = `${place.base}/listings/${assetId}/versions/${version.id}`;
  const review = version.review;
  return html`<tr><td><bdi>${version.version}</bdi></td><td>${versionLabels[version.status]}</td><td>${version.file ? html`<code><bdi>${fileName(version.file.storage_path)}</bdi></code>` : openVersionStatuses.includes(version.status) ? 'no file yet' : 'none'}</td>
<td>${review ? html`${decisionText(review)}${review.earlier.length > 0 && html`<details><summary>${review.earlier.length === 1 ? '1 earlier decision' : `${review.earlier.length} earlier decisions`}</summary><ol class="history" reversed>${[...review.earlier].reverse().map((earlier) => html`<li>${decisionText(earlier)}</li>`)}</ol></details>`}` : ''}</td><td>${when(version.created_at, '')}</td>
<td>${(version.status === 'draft' || version.status === 'changes_requested') && version.file && html`<form method="post" action="${action}/submit">${formToken(place)}<button type="submit">Submit</button></form>`}
${(version.status === 'draft' || version.status === 'changes_requested') && versionUpload(place, assetId, version.id, version.version)}
${openVersionStatuses.includes(version.status) && html`<form method="post" action="${action}/withdraw" data-confirm="${`Withdraw version ${version.version}? Its file is deleted; the live listing stays as it is.`}">${formToken(place)}<button type="submit">Withdraw</button></form>`}</td></tr>`;
}

function versionsSection(place: Place, asset: AssetDetail, versions: VersionView[]): Html {
  const open = versions.find((version) => openVersionStatuses.includes(version.status));
  return html`<section aria-labelledby="versions"><h2 id="versions">Versions</h2>
<p>A published listing’s new file goes through a version: the live listing stays as it is until a moderator approves it.</p>
${versions.length ? html`<table><thead><tr><th scope="col">Version</th><th scope="col">State</th><th scope="col">File</th><th scope="col">Decisions</th><th scope="col">Created</th><th scope="col"><span class="hidden">Actions</span></th></tr></thead>
<tbody>${versions.map((version) => versionRow(place, asset.id, version))}</tbody></table>` : html`<p>No versions yet: the listing is live as first published (${asset.version}).</p>`}
${open
    ? html`<p>Version <bdi>${open.version}</bdi> is open (${versionLabels[open.status]}): finish or withdraw it before starting another.</p>`
    : asset.status === 'published' && html`<h3>New version</h3>
<form method="post" action="${place.base}/listings/${asset.id}/versions">${formToken(place)}
<p><label>Version <input name="version" required maxlength="64" pattern="[0-9A-Za-z.+\\-]+" size="20"></label> <small>higher than ${asset.version}</small></p>
<p><label>Release notes<br><textarea name="release_notes" rows="5" cols="70" maxlength="10000"></textarea></label></p>
<p><button type="submit">New version</button></p>
</form>`}
</section>`;
}

export function listingPage(place: Place, view: ListingView): Html {
  const { asset } = view;
  const note = view.note && html`<p role="status">${doneNotes[view.note]}</p>`;
  const edit = editable.has(asset.status)
    ? html`<form method="post" action="${place.base}/listings/${asset.id}">${formToken(place)}
${listingFieldset(view.fields, view.categories)}
<p><button type="submit">Save</button></p>
</form>`
    : html`<p>A listing ${statusLabels[asset.status].toLowerCase()} cannot be edited.</p>`;
  const remove = asset.status === 'draft' && html`<form method="post" action="${place.base}/listings/${asset.id}/delete" data-confirm="${`Delete the draft “${asset.title}” for good, with its file and images?`}">${formToken(place)}<button type="submit">Delete draft</button></form>`;
  return layout(place, asset.title, html`${note}${refusal(view.message)}
<p><a href="${place.base}/listings">All listings</a> · Status: <strong>${statusLabels[asset.status]}</strong> · Version ${asset.version} · Updated ${when(asset.updated_at, '')}</p>
${asset.pending_version && !view.versions && html`<p>Open version: <bdi>${asset.pending_version.version}</bdi> (${versionLabels[asset.pending_version.status]})</p>`}
<section aria-labelledby="details"><h2 id="details">Details</h2>
${edit}
</section>
${fileSection(place, asset, view.siteOrigin)}
${reviewSection(place, asset)}
${view.versions && versionsSection(place, asset, view.versions)}
${remove}
${tusScript(place)}`);
}
