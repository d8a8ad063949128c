/**
 * The upload sweep (docs/security.md, "Disk: what is removed, and when"): what no record will ever
 * point at, removed on one instance at a time.
 */
import { resumableOf } from '../ports/resumable-blobs.js';
import type { Settings } from './context.js';
import { abortResumable, discardUploads, type UploadPorts } from './upload-lifecycle.js';
import { removeExpiredSupersededFiles, type RetentionPorts } from './version-retention.js';

export interface SweepReport {
  /** Whether this instance held the sweep's lease; false when another instance is sweeping. */
  ran: boolean;
  /** Uploads whose blobs were removed and which were forgotten. */
  removed: number;
  /** Leftovers of uploads in progress without any record, removed from the store (ResumableBlobs.removeLeftovers). */
  leftovers: number;
  /** Files of superseded versions removed after their retention (supersededRetentionSeconds). */
  superseded: number;
}

const sweepLease = 'upload-sweep';
const sweepBatch = 100;
/** The store's leftovers are looked for at most this often (a listing of an S3 bucket is not free), per blob store. */
const leftoverPassMs = 60 * 60 * 1000;
const lastLeftoverPass = new WeakMap<object, number>();

/**
 * Removes what uploads in progress left in the store with no record at all (a crash between the
 * store and the record, a listing deleted during an append): what nothing touched for the longest an
 * upload can take bytes, its URL's life and the grace after it, so no live upload loses a byte.
 */
async function removeLeftovers(ports: UploadPorts, settings: Settings): Promise<number> {
  const store = resumableOf(ports.blobs);
  const last = lastLeftoverPass.get(ports.blobs);
  if (!store?.removeLeftovers || (last !== undefined && ports.clock.now() - last < leftoverPassMs)) return 0;
  lastLeftoverPass.set(ports.blobs, ports.clock.now());
  return store.removeLeftovers(settings.uploadUrlTtlMs + settings.uploadGraceMs);
}

/**
 * Removes the blobs nothing will ever point at (port: listUploadGarbage): uploads of deleted
 * listings, replaced files, and uploads never confirmed once their URL expired more than
 * `uploadGraceMs` ago. Runs on one instance at a time (a lease in storage, held by `holder`);
 * each batch's blobs go before its records, so a crash midway only leaves work for the next run.
 */
export async function sweepUploads(ports: RetentionPorts, settings: Settings, holder: string): Promise<SweepReport> {
  const now = ports.clock.now();
  const leaseMs = 5 * 60 * 1000;
  if (!(await ports.storage.tryLease(sweepLease, holder, now, leaseMs))) return { ran: false, removed: 0, leftovers: 0, superseded: 0 };
  const cutoff = new Date(now - settings.uploadGraceMs).toISOString();
  // First, so that the uploads of the files it lets go of and fails to remove are garbage below.
  const superseded = await removeExpiredSupersededFiles(ports, settings);
  let removed = 0;
  for (;;) {
    const paths = await ports.storage.listUploadGarbage(cutoff, sweepBatch);
    if (paths.length > 0) await discardUploads(ports, paths);
    removed += paths.length;
    if (paths.length < sweepBatch) break;
    await ports.storage.tryLease(sweepLease, holder, ports.clock.now(), leaseMs);
  }
  // Upload states whose issued upload is gone another way (a store reset, a crash between the two forgets).
  for (const path of await ports.uploadStates.listExpired(cutoff, sweepBatch)) {
    if (await ports.storage.getUpload(path)) continue;
    await abortResumable(ports, path);
  }
  // Done: the lease is given back (held until a moment already past), so a server started next, a
  // restart's start-up sweep among them, runs at once instead of waiting out the five minutes.
  const leftovers = await removeLeftovers(ports, settings);
  await ports.storage.tryLease(sweepLease, holder, ports.clock.now(), -1);
  return { ran: true, removed, leftovers, superseded };
}
