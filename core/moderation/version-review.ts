/**
 * What a version changes, for the moderator who reviews it (docs/moderation.md, "What changed"):
 * its field changes against the live listing, both files' sizes and digests and, when both are
 * zip archives, the entries added, removed and changed, read from the central directories alone
 * with range reads (never the whole file), on every blob store.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from '../errors.js';
import type { BlobPort } from '../ports/blobs.js';
import type { AssetFileRecord, ListingsPort } from '../ports/storage.js';
import { AssetSchema, ImageSchema } from '../schemas/asset.js';
import { Nullable, Strict, StringEnum } from '../schemas/common.js';
import { VersionSchema } from '../schemas/version.js';
import { versionView } from '../versions/version-records.js';
import { versionNotFound, versionsPort } from '../versions/version-changes.js';
import { diffZipEntries, readZipDirectory, type ZipDirectory } from '../versions/zip-directory.js';
import { assetView, imageView } from '../views.js';

const FileFacts = Nullable(Strict({ storage_path: Type.String(), file_size: Type.Integer(), sha256: Nullable(Type.String()) }));
const EntryShape = Nullable(Strict({ size: Type.Integer(), crc32: Type.String() }));
const EntryChange = Strict({ name: Type.String(), before: EntryShape, after: EntryShape });

export const VersionReviewReportSchema = Strict(
  {
    version: VersionSchema,
    listing: AssetSchema,
    field_changes: Type.Array(Strict({ field: Type.String(), live: Type.Unknown(), proposed: Type.Unknown() })),
    files: Strict({ live: FileFacts, proposed: FileFacts }),
    gallery: Strict({
      live: Type.Array(ImageSchema, { description: 'The listing’s images now, primary first.' }),
      proposed: Type.Union([Type.Array(ImageSchema), Type.Null()], { description: 'The version’s new gallery, which replaces them when it goes live; null when it keeps them.' }),
    }),
    archive: Strict(
      {
        kind: StringEnum(['zip', 'not-zip', 'unavailable'] as const, { description: 'zip: both files are zip archives, compared below; not-zip: one is not (reason says which); unavailable: the blob store cannot read a range, or a file is missing.' }),
        reason: Nullable(Type.String()),
        added: Type.Array(EntryChange),
        removed: Type.Array(EntryChange),
        changed: Type.Array(EntryChange),
        bytes_read: Type.Integer({ description: 'The bytes read from the blob store for the comparison (the central directories and their end records).' }),
      },
    ),
  },
  { $id: 'VersionReviewReport' },
);
export type VersionReviewReport = Static<typeof VersionReviewReportSchema>;

const facts = (file: AssetFileRecord | null) => (file ? { storage_path: file.storage_path, file_size: file.file_size, sha256: file.sha256 ?? null } : null);

/** The central directory of a stored file, with range reads only. */
async function directoryOf(blobs: BlobPort, file: AssetFileRecord): Promise<ZipDirectory | string> {
  if (!blobs.readRange) return 'the blob store cannot read part of a file';
  const readRange = blobs.readRange.bind(blobs);
  let missing = false;
  const directory = await readZipDirectory(file.file_size, async (offset, length) => {
    const bytes = await readRange(file.storage_path, offset, length);
    if (!bytes) missing = true;
    return bytes ?? new Uint8Array(0);
  });
  return missing ? `the file ${file.storage_path} is missing from the blob store` : directory;
}

/** The moderator's view of a version: what it would change if approved (or changed, once decided). */
export async function reviewVersion(ports: { storage: Pick<ListingsPort, 'getAsset' | 'listImages'>; blobs: BlobPort }, versionId: string): Promise<VersionReviewReport> {
  const version = await versionsPort(ports.storage).getVersion(versionId);
  if (!version) throw versionNotFound();
  const asset = await ports.storage.getAsset(version.asset_id);
  if (!asset) throw new ApiError('NOT_FOUND', 'No listing with this id.');
  const field_changes = Object.entries(version.changes)
    .filter(([, proposed]) => proposed !== undefined)
    .map(([field, proposed]) => ({ field, live: (asset as unknown as Record<string, unknown>)[field] ?? null, proposed }));
  const archive: VersionReviewReport['archive'] = { kind: 'unavailable', reason: null, added: [], removed: [], changed: [], bytes_read: 0 };
  if (!asset.file || !version.file) archive.reason = asset.file ? 'the version has no confirmed file yet' : 'the listing has no live file';
  else {
    const [live, proposed] = await Promise.all([directoryOf(ports.blobs, asset.file), directoryOf(ports.blobs, version.file)]);
    if (typeof live === 'string' || typeof proposed === 'string') archive.reason = typeof live === 'string' ? live : (proposed as string);
    else {
      archive.bytes_read = live.bytesRead + proposed.bytesRead;
      if (live.kind === 'zip' && proposed.kind === 'zip') Object.assign(archive, { kind: 'zip', ...diffZipEntries(live.entries, proposed.entries) });
      else {
        archive.kind = 'not-zip';
        archive.reason = live.kind === 'not-zip' ? `the live file is not a zip archive: ${live.reason}` : `the version's file is not a zip archive: ${(proposed as { reason: string }).reason}`;
      }
    }
  }
  const view = versionView(version);
  const gallery = { live: (await ports.storage.listImages(asset.id)).map(imageView), proposed: view.gallery };
  return { version: view, listing: assetView(asset), field_changes, files: { live: facts(asset.file), proposed: facts(version.file) }, gallery, archive };
}
