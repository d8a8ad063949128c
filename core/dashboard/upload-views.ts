/**
 * The upload forms of the listing page (docs/dashboard.md, "Uploading on the listing page"): a file
 * input, Upload, a progress bar and Pause/Resume, run by the dashboard's script with the vendored
 * tus client (upload-pages.ts answers its JSON). They are `hidden` until the script shows them: a
 * browser without JavaScript reads only that the upload is the API's or `marketkit upload`'s.
 */
import { statusesAllowing } from '../domain/asset-states.js';
import type { AssetDetail } from '../schemas/asset.js';
import { html, type Html } from './html.js';
import type { Place } from './pages.js';

const fileStatuses = new Set<string>(statusesAllowing('requestFileUpload'));
const imageStatuses = new Set<string>(statusesAllowing('requestImageUpload'));

/** The vendored tus client (vendor/tus.ts), on the listing page (cached five minutes, like the dashboard's script). */
export const tusScript = (place: Place) => html`<script src="${place.base}/static/tus.min.js" defer></script>`;

/** One upload form: `kind` file or image, `action` the JSON routes' path before `/upload-url` and `/confirm`, `key` what its resume is kept under. */
function uploadForm(place: Place, kind: 'file' | 'image', action: string, key: string, label: string, accept: string): Html {
  return html`<form hidden data-upload="${kind}" data-action="${action}" data-key="${key}" data-form-token="${place.formToken ?? ''}" class="upload">
<p><label>${label} <input type="file" name="file" required${accept && html` accept="${accept}"`}></label> <button type="submit">Upload</button> <button type="button" data-upload-pause hidden>Pause</button></p>
<p><progress max="100" value="0" aria-label="${`${label}: upload progress`}" hidden></progress> <span data-upload-status role="status"></span></p>
</form>`;
}

/** The listing's file and gallery uploads its status allows, with the note for a browser without the script. */
export function listingUploads(place: Place, asset: AssetDetail): Html {
  const base = `${place.base}/listings/${asset.id}`;
  const file = fileStatuses.has(asset.status) && uploadForm(place, 'file', `${base}/file`, `${asset.id}/file`, 'Listing file', '');
  const image = imageStatuses.has(asset.status) && uploadForm(place, 'image', `${base}/images`, `${asset.id}/images`, 'Gallery image', 'image/webp,image/png,image/jpeg');
  if (!file && !image) return html`<p><small>A listing in this status takes no upload.</small></p>`;
  return html`${file}${image}
<p><small>An upload stopped by a reload or a lost connection goes on from where it stopped: choose the same file again. Without JavaScript, upload with the API or <code>marketkit upload</code>.</small></p>`;
}

/** An open version's file upload (draft, or changes requested). */
export const versionUpload = (place: Place, assetId: string, versionId: string, version: string): Html =>
  uploadForm(place, 'file', `${place.base}/listings/${assetId}/versions/${versionId}/file`, `${assetId}/versions/${versionId}`, `File of version ${version}`, '');
