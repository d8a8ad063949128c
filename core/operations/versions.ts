/**
 * A published listing's versions, the seller's side (docs/moderation.md, "Versions"): create one,
 * read them, change a draft, submit it for review, withdraw it. Its file goes through
 * version-files.ts; the moderators' side is core/moderation/version-moderation.ts.
 */
import { ApiError } from '../errors.js';
import { recordId } from '../ports/ids.js';
import type { VersionRecord } from '../ports/versions.js';
import { ForAsset } from '../schemas/asset.js';
import { ForVersion, VersionCreateBody, VersionListSchema, VersionSchema, VersionUpdateBody } from '../schemas/version.js';
import { versionAllowed } from '../domain/version-states.js';
import { checkNewVersion } from '../versions/version-string.js';
import { versionUploads, versionView } from '../versions/version-records.js';
import { versionImageOperations } from './version-images.js';
import { changeVersion, versionEvent, versionsPort } from '../versions/version-changes.js';
import { versionFileOperations } from './version-files.js';
import { earlierVersions, loadOwnedVersion, normalizeChanges, notPublished } from './version-rules.js';
import { loadOwnedAsset, requireUnrestricted, resolveSchedule } from './asset-rules.js';
import { defineOperation, nowIso } from './context.js';
import { addsOnce, reads, replaces } from './declaration.js';
import { discardUploads } from './upload-lifecycle.js';
import { createVersionModeration } from './version-moderation.js';

export const createAssetVersion = defineOperation({
  name: 'createAssetVersion',
  rest: { method: 'POST', path: '/assets/:id/versions', params: { id: 'asset_id' }, status: 201, tag: 'Assets' },
  tool: {
    name: 'create_asset_version',
    title: 'Start a new version of a published listing',
    description:
      'A published listing’s new file goes through a version: create it with a version string (higher than every earlier one ' +
      'when both are semantic versions: VERSION_NOT_HIGHER), release notes and optional field changes (title, description, tags, ' +
      'pricing_type, price). Then get_version_upload_url, confirm_version_file, submit_asset_version. The live listing stays ' +
      'served unchanged until a moderator approves (or, with release_at, until that time after approval). At most one open version per listing (CONFLICT).',
    annotations: addsOnce,
  },
  summary: 'Start a new version of a published listing (a MarketKit extension)',
  description:
    'The listing must be published (409 INVALID_STATUS). At most one version per listing may be open: draft, pending, changes_requested or scheduled (409 CONFLICT naming it). ' +
    'The version string must differ from every earlier one of the listing and, when both are semantic versions, be higher (409 VERSION_NOT_HIGHER). ' +
    'release_at (plan feature scheduled_publishing, else 409 PRECONDITION_FAILED): once approved, the version waits and goes live at that time.',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'CONFLICT', 'VERSION_NOT_HIGHER', 'PRECONDITION_FAILED', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireUnrestricted,
  input: ForAsset(VersionCreateBody),
  output: VersionSchema,
  async run(ctx, input) {
    const asset = await loadOwnedAsset(ctx, input.asset_id);
    if (asset.status !== 'published') throw notPublished(asset.status);
    checkNewVersion(input.version, await earlierVersions(ctx, asset.id, asset.version));
    const releaseAt = resolveSchedule(ctx.caller.account, input.release_at) ?? null;
    const at = nowIso(ctx);
    const record: VersionRecord = {
      id: recordId(ctx.ports.ids), asset_id: asset.id, owner_id: asset.owner_id, version: input.version,
      release_notes: input.release_notes ?? '', status: 'draft', file: null, gallery: null, changes: normalizeChanges(input.changes, asset),
      review: null, release_at: releaseAt, previous_id: null, created_at: at, updated_at: at, submitted_at: null, decided_at: null, revision: 1,
    };
    // A creation has no event of its own (the contract's events start at submission).
    const result = await versionsPort(ctx.ports.storage).createVersion(record);
    if (result.outcome === 'missing') throw new ApiError('NOT_FOUND', 'No listing with this id.');
    if (result.outcome === 'open_exists') {
      throw new ApiError('CONFLICT', `Version ${result.open.version} (${result.open.id}) of this listing is ${result.open.status}: finish or withdraw it first.`);
    }
    return versionView(result.version);
  },
});

export const listAssetVersions = defineOperation({
  name: 'listAssetVersions',
  rest: { method: 'GET', path: '/assets/:id/versions', params: { id: 'asset_id' }, tag: 'Assets' },
  tool: {
    name: 'list_asset_versions',
    title: 'List a listing’s versions',
    description: 'Every version of one of your published listings, newest first, with its status (the live one is approved) and the last review decision.',
    annotations: reads,
  },
  readsStorageOnly: true,
  summary: 'The versions of a published listing, newest first',
  scope: 'assets:read',
  errors: ['NOT_FOUND'],
  requestClass: 'read',
  input: ForAsset(),
  output: VersionListSchema,
  async run(ctx, input) {
    const asset = await loadOwnedAsset(ctx, input.asset_id);
    return { items: (await versionsPort(ctx.ports.storage).listVersions(asset.id)).map(versionView) };
  },
});

export const getAssetVersion = defineOperation({
  name: 'getAssetVersion',
  rest: { method: 'GET', path: '/assets/:id/versions/:version_id', params: { id: 'asset_id', version_id: 'version_id' }, tag: 'Assets' },
  tool: { name: 'get_asset_version', title: 'Get a version', description: 'One version of one of your listings, with its file, changes and review.', annotations: reads },
  readsStorageOnly: true,
  summary: 'One version of a published listing',
  scope: 'assets:read',
  errors: ['NOT_FOUND'],
  requestClass: 'read',
  input: ForVersion(),
  output: VersionSchema,
  async run(ctx, input) {
    return versionView((await loadOwnedVersion(ctx, input.asset_id, input.version_id)).version);
  },
});

export const updateAssetVersion = defineOperation({
  name: 'updateAssetVersion',
  rest: { method: 'PATCH', path: '/assets/:id/versions/:version_id', params: { id: 'asset_id', version_id: 'version_id' }, tag: 'Assets' },
  tool: {
    name: 'update_asset_version',
    title: 'Change a version',
    description: 'Changes a draft or changes_requested version’s version string, release notes, field changes (changes replaces the whole set) or release_at.',
    annotations: replaces,
  },
  summary: 'Change a draft version (version string, release notes, field changes, release_at)',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'CONFLICT', 'VERSION_NOT_HIGHER', 'PRECONDITION_FAILED', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireUnrestricted,
  input: ForVersion(VersionUpdateBody),
  output: VersionSchema,
  async run(ctx, input) {
    const { version: current, asset } = await loadOwnedVersion(ctx, input.asset_id, input.version_id);
    versionAllowed(current, 'update');
    if (input.version !== undefined && input.version !== current.version) checkNewVersion(input.version, await earlierVersions(ctx, asset.id, asset.version, current.id));
    const changes = input.changes !== undefined ? normalizeChanges(input.changes, asset) : undefined;
    const releaseAt = resolveSchedule(ctx.caller.account, input.release_at);
    const { version } = await changeVersion(ctx.ports, () => loadOwnedVersion(ctx, input.asset_id, input.version_id), (latest) => {
      versionAllowed(latest, 'update');
      return {
        ...(input.version !== undefined ? { version: input.version } : {}),
        ...(input.release_notes !== undefined ? { release_notes: input.release_notes } : {}),
        ...(changes !== undefined ? { changes } : {}),
        ...(releaseAt !== undefined ? { release_at: releaseAt } : {}),
      };
    });
    return versionView(version);
  },
});

export const submitAssetVersion = defineOperation({
  name: 'submitAssetVersion',
  rest: { method: 'POST', path: '/assets/:id/versions/:version_id/submit', params: { id: 'asset_id', version_id: 'version_id' }, tag: 'Assets' },
  tool: {
    name: 'submit_asset_version',
    title: 'Submit a version for review',
    description: 'Sends a draft or changes_requested version with a confirmed file (NO_FILE) to moderation; it becomes pending. The live listing stays as it is until approval.',
    annotations: addsOnce,
  },
  summary: 'Submit a version for moderation review',
  description: 'Needs a draft or changes_requested version (409 INVALID_STATUS), its confirmed file (422 NO_FILE) and its listing still published (409 INVALID_STATUS).',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'NO_FILE', 'CONFLICT', 'ACCOUNT_RESTRICTED'],
  requestClass: 'write',
  guard: requireUnrestricted,
  input: ForVersion(),
  output: VersionSchema,
  async run(ctx, input) {
    const { version } = await changeVersion(ctx.ports, () => loadOwnedVersion(ctx, input.asset_id, input.version_id), (latest, asset, at) => {
      const status = versionAllowed(latest, 'submit');
      if (!latest.file) throw new ApiError('NO_FILE', 'Upload and confirm the version’s file first (upload-url, then confirm-file under the version).');
      if (asset.status !== 'published') throw notPublished(asset.status);
      return { status, submitted_at: at };
    }, (after, asset, at) => [versionEvent(ctx.ports, 'asset.version_submitted', asset, after, at)]);
    // A marketplace that approves every submission (local development) approves a version too.
    if (ctx.settings.onSubmit === 'auto-approve') return versionView(await createVersionModeration(ctx.ports).approve(version.id));
    return versionView(version);
  },
});

export const withdrawAssetVersion = defineOperation({
  name: 'withdrawAssetVersion',
  rest: { method: 'POST', path: '/assets/:id/versions/:version_id/withdraw', params: { id: 'asset_id', version_id: 'version_id' }, tag: 'Assets' },
  tool: {
    name: 'withdraw_asset_version',
    title: 'Withdraw a version',
    description: 'Withdraws a version not yet live (draft, pending, changes_requested, or scheduled: approved but waiting for its release_at); its file is deleted. The live listing is unchanged.',
    annotations: replaces,
  },
  summary: 'Withdraw a version before it goes live',
  scope: 'assets:write',
  errors: ['NOT_FOUND', 'INVALID_STATUS', 'CONFLICT'],
  requestClass: 'write',
  input: ForVersion(),
  output: VersionSchema,
  async run(ctx, input) {
    // Its file and gallery will never go live: the version lets go of them, and they are removed.
    const { version, before } = await changeVersion(ctx.ports, () => loadOwnedVersion(ctx, input.asset_id, input.version_id), (latest, _asset, at) => ({
      status: versionAllowed(latest, 'withdraw'),
      decided_at: at,
      file: null,
      gallery: null,
    }), (after, asset, at) => [versionEvent(ctx.ports, 'asset.version_withdrawn', asset, after, at)]);
    // Removed now; if this fails, the uploads (no record points at them) stay garbage for the sweep.
    await discardUploads(ctx.ports, versionUploads(before)).catch(() => {});
    return versionView(version);
  },
});

/** The family's operations, in the order REST lists them and MCP offers their tools. */
export const versionOperations = [createAssetVersion, listAssetVersions, getAssetVersion, updateAssetVersion, ...versionFileOperations, ...versionImageOperations, submitAssetVersion, withdrawAssetVersion];
