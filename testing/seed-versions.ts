/**
 * A seeded listing's open version (docs/testing.md, "Seeds"): a published listing of the seed may
 * carry `version`, a version in draft, pending or changes_requested with its release notes, field
 * changes and file, written through the versions port as the real flow leaves it, so that a client
 * under test meets a listing whose new version is in review (its owner's `pending_version`, the
 * moderators' queue) without uploading anything.
 */
import * as v from 'valibot';
import { isApiError } from '../core/errors.js';
import type { Marketplace } from '../core/marketplace.js';
import { sanitizeFilename } from '../core/operations/issued-uploads.js';
import { normalizeChanges } from '../core/operations/version-rules.js';
import type { AssetRecord } from '../core/ports/storage.js';
import { versionsOf, type VersionRecord } from '../core/ports/versions.js';
import { VersionChangesSchema } from '../core/schemas/version.js';
import { validate } from '../core/validation.js';
import { versionFolder } from '../core/versions/version-records.js';
import { checkNewVersion } from '../core/versions/version-string.js';

/** A seeded file: a placeholder, or its name, content and type. */
export const SeedFile = v.strictObject({
  filename: v.optional(v.string(), 'pack.zip'),
  /** The file's bytes as UTF-8 text, or `content_base64`. */
  content: v.optional(v.string()),
  content_base64: v.optional(v.string()),
  content_type: v.optional(v.string(), 'application/zip'),
});

const openStatuses = ['draft', 'pending', 'changes_requested'] as const;

/** A published listing's open version in a seed. */
export const SeedVersion = v.strictObject({
  version: v.string('version must be a version string such as 1.1.0'),
  status: v.optional(v.picklist(openStatuses, `version.status must be one of ${openStatuses.join(', ')}`), 'pending'),
  release_notes: v.optional(v.string(), ''),
  /** Field changes that go live with it (title, description, tags, pricing_type, price). */
  changes: v.optional(v.record(v.string(), v.unknown())),
  /** Its confirmed file (`true` for a placeholder); needed past draft, as the real flow needs it. */
  file: v.optional(v.union([v.literal(true), SeedFile])),
  /** The moderator's reason, for changes_requested. */
  review_reason: v.optional(v.string()),
});
export type SeedVersionInput = v.InferOutput<typeof SeedVersion>;

const decodeBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/** A seeded file's bytes and where it says they come from. */
export function seedFileBytes(file: true | v.InferOutput<typeof SeedFile>): { bytes: Uint8Array; filename: string; content_type: string } {
  const spec = file === true ? { filename: 'pack.zip', content_type: 'application/zip' } : file;
  const bytes =
    'content_base64' in spec && spec.content_base64 !== undefined ? decodeBase64(spec.content_base64) : new TextEncoder().encode(('content' in spec && spec.content) || 'PK\u0003\u0004 seeded file');
  return { bytes, filename: spec.filename, content_type: spec.content_type };
}

/** The seed's checks of a listing's version before anything is written: a message naming what to change, or null. */
export function seedVersionProblem(status: string, version: SeedVersionInput): string | null {
  if (status !== 'published') return `has a version but is ${status}: only a published listing has versions`;
  if (version.status !== 'draft' && version.file === undefined) return `.version is ${version.status}, which needs a file: add file: true`;
  return null;
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** Writes a published listing's seeded version, its file a confirmed upload counted in the owner's storage use. */
export async function applySeedVersion(marketplace: Marketplace, asset: AssetRecord, seeded: SeedVersionInput, fail: (path: string, error: unknown) => never): Promise<void> {
  const { ports } = marketplace;
  const port = versionsOf(ports.storage);
  if (!port) fail('.version', 'this storage keeps no versions');
  let changes: VersionRecord['changes'] = {};
  try {
    checkNewVersion(seeded.version, [asset.version]);
    changes = normalizeChanges(seeded.changes === undefined ? undefined : validate(VersionChangesSchema, seeded.changes), asset);
  } catch (error) {
    fail('.version', isApiError(error) ? `${error.message}${error.details?.[0] ? ` (${error.details[0].path} ${error.details[0].message})` : ''}` : error);
  }
  const now = asset.created_at;
  const id = ports.ids.uuid();
  let file: VersionRecord['file'] = null;
  if (seeded.file !== undefined) {
    const { bytes, filename, content_type } = seedFileBytes(seeded.file);
    const storage_path = `assets/${asset.id}/${versionFolder(id)}/${ports.ids.uuid()}/${sanitizeFilename(filename)}`;
    await ports.blobs.put(storage_path, once(bytes), { contentType: content_type, maxBytes: Number.MAX_SAFE_INTEGER });
    await ports.storage.recordUpload({ storage_path, asset_id: asset.id, kind: 'file', public_url: null, expires_at: now, created_at: now, state: 'confirmed', size: bytes.byteLength });
    file = { storage_path, file_size: bytes.byteLength, content_type, confirmed_at: now };
  }
  const submitted = seeded.status === 'draft' ? null : now;
  const record: VersionRecord = {
    id, asset_id: asset.id, owner_id: asset.owner_id, version: seeded.version, release_notes: seeded.release_notes, status: seeded.status, file, changes, gallery: null,
    review: seeded.status === 'changes_requested' ? { decision: 'changes_requested', reason: seeded.review_reason ?? 'Seeded review.', reviewed_at: now } : null,
    release_at: null, previous_id: null, created_at: now, updated_at: now, submitted_at: submitted, decided_at: null, revision: 1,
  };
  const created = await port!.createVersion(record);
  if (created.outcome !== 'created') fail('.version', `could not be written (${created.outcome})`);
}

