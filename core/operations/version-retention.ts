/**
 * The retention of superseded versions' files (docs/moderation.md, "Versions"): a version that a
 * later one replaced keeps its file for a rollback, and the operator's retention
 * (`supersededRetentionSeconds`, 30 days by default) bounds how long. Past it the upload sweep
 * removes the file: the version lets go of it first (one write at its revision), so nothing points
 * at the bytes, and they go with the upload's record, out of the seller's quota. The version the live
 * one would roll back to keeps its file however old it is: a rollback is always possible one step.
 */
import { versionsOf, type VersionRecord, type VersionsPort } from '../ports/versions.js';
import type { Settings } from './context.js';
import { discardUploads, type UploadPorts } from './upload-lifecycle.js';

const batch = 100;

/** Whether `version` is what its listing's live version rolls back to, or the listing's file: kept. */
async function stillNeeded(ports: UploadPorts, port: VersionsPort, version: VersionRecord): Promise<boolean> {
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
export async function removeExpiredSupersededFiles(ports: UploadPorts, settings: Pick<Settings, 'supersededRetentionMs'>): Promise<number> {
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
      if ((await port.updateVersion(version.id, version.revision, { file: null, updated_at: at })).outcome !== 'updated') continue;
      // A failed removal is the upload sweep's: nothing points at the upload any more.
      await discardUploads(ports, [version.file!.storage_path]).catch(() => undefined);
      removed++;
    }
    if (expired.length < batch) return removed;
  }
}
