/**
 * Uploads from the listing page (docs/dashboard.md, "Uploading on the listing page"): the JSON
 * routes the dashboard's script calls around a tus upload. Each runs the operation REST runs
 * (createAssetUploadUrl and confirmAssetFile for the listing's file, createImageUploadUrl and
 * confirmAssetImage for a gallery image, createVersionUploadUrl and confirmVersionFile for an open
 * version's file) through runOperation with the session's context, so no rule is written twice. The
 * bytes go to the API's own tus endpoint (`upload_url`, on this server: answered as a same-origin
 * path, so the Content-Security-Policy's connect-src 'self' holds); images take the same resumable
 * way rather than `signed_url`, which may be a store's address on another origin.
 */
import { isApiError, statusOf } from '../errors.js';
import type { AnyOperation } from '../operations/context.js';
import { confirmAssetFile, confirmAssetImage, createAssetUploadUrl, createImageUploadUrl } from '../operations/uploads.js';
import { confirmVersionFile, createVersionUploadUrl } from '../operations/version-files.js';
import { runOperation } from '../pipeline/run-operation.js';
import type { CoreResponse } from '../pipeline/request.js';
import type { DoneNote } from './listing-detail-views.js';
import { json, jsonAnswer } from './respond.js';
import type { DashboardRoute, SignedInRequest } from './routes.js';

/** Only the named fields of the script's body: the operation's schema checks them (400 naming the field). */
async function fieldsOf(request: SignedInRequest, names: readonly string[]): Promise<Record<string, unknown>> {
  const body = await request.exchange.readJson();
  const given = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  return Object.fromEntries(names.filter((name) => given[name] !== undefined).map((name) => [name, given[name]]));
}

/** The operation's target: the listing, and the version when the path names one. */
const targetOf = ({ params }: SignedInRequest) => ({ asset_id: params.id!, ...(params.version ? { version_id: params.version } : {}) });

/** A URL on this site as a path (the page's own origin, which may be the site's `localhost` form); any other as it is. */
function onThisSite(request: SignedInRequest, url: string): string {
  const site = new URL(request.exchange.siteUrl).origin;
  return url.startsWith(`${site}/`) ? url.slice(site.length) : url;
}

/** Step 1: the upload's tus URL and what its confirm needs. */
function issue(operation: AnyOperation) {
  return json<SignedInRequest>(async (request) => {
    const input = { ...targetOf(request), ...(await fieldsOf(request, ['filename', 'file_size'])) };
    const issued = (await runOperation(request.ctx, operation, input)).value as { upload_url: string; storage_path: string; public_url?: string };
    return jsonAnswer(200, { upload_url: onThisSite(request, issued.upload_url), storage_path: issued.storage_path, ...(issued.public_url ? { public_url: issued.public_url } : {}) });
  });
}

/** Step 2, after the tus upload completed: the confirm, then back to the listing's page saying so. */
function confirm(operation: AnyOperation, names: readonly string[], note: DoneNote) {
  return json<SignedInRequest>(async (request) => {
    await runOperation(request.ctx, operation, { ...targetOf(request), ...(await fieldsOf(request, names)) });
    return jsonAnswer(200, { redirect: `${request.place.base}/listings/${encodeURIComponent(request.params.id!)}?done=${note}` });
  });
}

const route = (path: string, handle: (request: SignedInRequest) => Promise<CoreResponse>): DashboardRoute => ({ method: 'POST', path, role: 'account', body: 'json', handle });

export const uploadRoutes: DashboardRoute[] = [
  route('/listings/{id}/file/upload-url', issue(createAssetUploadUrl)),
  route('/listings/{id}/file/confirm', confirm(confirmAssetFile, ['storage_path', 'file_size', 'sha256'], 'uploaded')),
  route('/listings/{id}/images/upload-url', issue(createImageUploadUrl)),
  route('/listings/{id}/images/confirm', confirm(confirmAssetImage, ['public_url'], 'image_added')),
  route('/listings/{id}/versions/{version}/file/upload-url', issue(createVersionUploadUrl)),
  route('/listings/{id}/versions/{version}/file/confirm', confirm(confirmVersionFile, ['storage_path', 'file_size', 'sha256'], 'version_uploaded')),
];
