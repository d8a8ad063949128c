/**
 * A version's file: the same two upload paths as a listing's file (the signed PUT and the
 * resumable upload_url, the quota, the SHA-256 at confirm), under the version's own folder of the
 * listing's paths, so that the live file is never touched while the version is prepared.
 */
import { invalidInput } from '../errors.js';
import { ConfirmFileBody, ConfirmFileResultSchema, UploadUrlBody, UploadUrlSchema } from '../schemas/upload.js';
import { ForVersion } from '../schemas/version.js';
import { versionAllowed } from '../domain/version-states.js';
import { versionFolder, versionOfPath } from '../versions/version-records.js';
import { changeVersion } from '../versions/version-changes.js';
import { fileView } from '../views.js';
import { requireUnrestricted } from './asset-rules.js';
import { defineOperation } from './context.js';
import { adds, replaces } from './declaration.js';
import { confirmedAgain, discardIfRefused, takeFileUpload } from './file-confirm.js';
import { issueUpload } from './issued-uploads.js';
import { discardUploads } from './upload-lifecycle.js';
import { loadOwnedVersion } from './version-rules.js';

export const createVersionUploadUrl = defineOperation({
  name: 'createVersionUploadUrl',
  rest: { method: 'POST', path: '/assets/:id/versions/:version_id/upload-url', params: { id: 'asset_id', version_id: 'version_id' }, tag: 'Uploads' },
  tool: {
    name: 'get_version_upload_url',
    title: 'Get a version’s file upload URL',
    description:
      'Upload step 1 of 2 for a version’s file, as get_asset_upload_url is for a listing’s: pass file_size when known; PUT the bytes to ' +
      'signed_url (or tus at upload_url) outside MCP, then confirm_version_file with storage_path, the size and the SHA-256. The version must be draft or changes_requested.',
    annotations: adds,
  },
  summary: "Get a signed URL to PUT a version's file to",
  description: 'As upload-url is for a listing’s file; the version must be draft or changes_requested (409 INVALID_STATUS). The live listing’s file is not touched.',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'PAYLOAD_TOO_LARGE', 'STORAGE_QUOTA_EXCEEDED', 'ACCOUNT_RESTRICTED'],
  requestClass: 'upload',
  guard: requireUnrestricted,
  input: ForVersion(UploadUrlBody),
  output: UploadUrlSchema,
  async run(ctx, input) {
    const { asset, version } = await loadOwnedVersion(ctx, input.asset_id, input.version_id);
    versionAllowed(version, 'upload');
    const { public_url: _none, ...issued } = await issueUpload(ctx, asset, 'file', input.filename, input.file_size, versionFolder(version.id));
    return issued;
  },
});

export const confirmVersionFile = defineOperation({
  name: 'confirmVersionFile',
  rest: { method: 'POST', path: '/assets/:id/versions/:version_id/confirm-file', params: { id: 'asset_id', version_id: 'version_id' }, tag: 'Uploads' },
  tool: {
    name: 'confirm_version_file',
    title: 'Confirm a version’s uploaded file',
    description:
      'Upload step 2 of 2 for a version: makes the uploaded file the version’s (not yet the listing’s: that happens when a moderator approves). ' +
      'storage_path from get_version_upload_url, file_size the exact bytes, sha256 to have the server check the bytes it received.',
    annotations: replaces,
  },
  summary: "Confirm the uploaded file as the version's file",
  description: 'As confirm-file is for a listing; a new file replaces the version’s previous one. The listing’s live file stays until approval.',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'CONFLICT', 'PAYLOAD_TOO_LARGE', 'STORAGE_QUOTA_EXCEEDED', 'CHECKSUM_MISMATCH', 'EMPTY_FILE', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireUnrestricted,
  input: ForVersion(ConfirmFileBody),
  output: ConfirmFileResultSchema,
  async run(ctx, input) {
    const { asset, version: current } = await loadOwnedVersion(ctx, input.asset_id, input.version_id);
    const path = input.storage_path;
    const issued = await ctx.ports.storage.getUpload(path);
    if (!issued || issued.asset_id !== asset.id || issued.kind !== 'file' || versionOfPath(path)?.versionId !== current.id) {
      throw invalidInput('storage_path', 'was not issued for this version by its upload-url');
    }
    if (issued.state === 'confirmed') return { success: true as const, file: fileView(confirmedAgain(current.file, path, input)) };
    versionAllowed(current, 'upload');
    const file = await takeFileUpload(ctx, issued, input);
    const { version, before } = await changeVersion(ctx.ports, () => loadOwnedVersion(ctx, input.asset_id, input.version_id), (latest) => {
      versionAllowed(latest, 'upload');
      return { file };
    }).catch(async (error: unknown) => {
      // The change's error is the answer; the bytes stay for a retry unless the refusal is final (file-confirm.ts).
      await discardIfRefused(ctx.ports, path, error);
      throw error;
    });
    await ctx.ports.storage.setUploadState(path, ['issued', 'uploaded'], 'confirmed', file.file_size);
    const replaced = before.file?.storage_path;
    // The version's previous file will never go live: removed now, or by the sweep if this fails.
    if (replaced && replaced !== path) await discardUploads(ctx.ports, [replaced]).catch(() => {});
    return { success: true as const, file: fileView(version.file!) };
  },
});

export const versionFileOperations = [createVersionUploadUrl, confirmVersionFile];
