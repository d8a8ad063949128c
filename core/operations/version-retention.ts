/**
 * The retention of superseded versions' files (docs/moderation.md, "Versions"): a version that a
 * later one replaced keeps its file (and the gallery a new one replaced) for a rollback, and the operator's retention
 * (`supersededRetentionSeconds`, 30 days by default) bounds how long. Past it the upload sweep
 * removes the file: the version lets go of it first (one write at its revision), so nothing points
 * at the bytes, and they go with the upload's record, out of the seller's quota. The version the live
 * one would roll back to keeps its file however old it is: a rollback is always possible one step.
 */
import type { ListingsPort } from '../ports/listings.js';
import { versionsOf, type VersionRecord, type VersionsPort } from '../ports/versions.js';
import type { Settings } from './context.js';
import { discardUploads, type UploadPorts } from './upload-lifecycle.js';
import { versionUploads } from '../versions/version-records.js';

const batch = 100;

/** What the retention uses: the uploads' ports, and the listing's images (never removed). */
export type RetentionPorts = UploadPorts & { storage: Pick<ListingsPort, 'listImages'> };

/** Whether `version` is what its listing's live version rolls back to, or the listing's file: kept. */
async function stillNeeded(ports: RetentionPorts, port: VersionsPort, version: VersionRecord): Promise<boolean> {
  const asset = await ports.storage.getAsset(version.asset_id);
  if (!asset) return true;
  if (asset.file?.storage_path === version.file?.storage_path) return true;
  const live = (await port.listVersions(version.asset_id)).find((v) => v.status === 'approved');
  return live?.previous_id === version.id;
}

/**
 * Removes the files of versions superseded longer ago than the retention, except the live
 * version's rollback target; the number removed. A storage without versions has none. A file whose
 * removal fails is left to the upload sweep (no record points at it once the version let go).
 */
export async function removeExpiredSupersededFiles(ports: RetentionPorts, settings: Pick<Settings, 'supersededRetentionMs'>): Promise<number> {
  const port = versionsOf(ports.storage);
  if (!port) return 0;
  const before = new Date(ports.clock.now() - settings.supersededRetentionMs).toISOString();
  const at = new Date(ports.clock.now()).toISOString();
  let removed = 0;
  const kept = new Set<string>();
  for (;;) {
    const expired = (await port.listSupersededFiles(before, batch + kept.size)).filter((v) => !kept.has(v.id));
    for (const version of expired) {
      if (await stillNeeded(ports, port, version)) {
        kept.add(version.id);
        continue;
      }
      // Stale (a rollback took it meanwhile): left as it is, the next sweep looks again.
      if ((await port.updateVersion(version.id, version.revision, { file: null, gallery: null, updated_at: at })).outcome !== 'updated') continue;
      // Its file and the gallery it took out of service; never an image the listing shows (a gallery
      // is out of service once superseded, but a removal is the one thing that cannot be undone).
      const shown = new Set((await ports.storage.listImages(version.asset_id)).map((image) => image.storage_path));
      // A failed removal is the upload sweep's: nothing points at the uploads any more.
      await discardUploads(ports, versionUploads(version).filter((path) => !shown.has(path))).catch(() => undefined);
      removed++;
    }
    if (expired.length < batch) return removed;
  }
}
