import type { VersionStatus } from '../domain/version-states.js';
import type { AssetChanges, AssetFileRecord, AssetRecord, ImageRecord } from './records.js';
import type { ListPosition } from './listings.js';
import type { OutboxEvent } from './webhook-records.js';

/** The fields of the listing a version changes when it goes live, beside its file and version string. */
export interface VersionFieldChanges {
  title?: string;
  description?: string | null;
  tags?: string[];
  pricing_type?: AssetRecord['pricing_type'];
  price?: number | null;
}

/** One moderation decision on a version. */
export interface VersionDecision {
  decision: 'approved' | 'changes_requested' | 'rejected' | 'rolled_back';
  reason: string | null;
  reviewed_at: string;
}

/** The last moderation decision on a version, shown to its seller, with the ones before it. */
export interface VersionReview extends VersionDecision {
  /** The decisions on this version before this one, oldest first (as AssetReview.earlier). */
  earlier?: VersionDecision[];
}

/**
 * A version of a published listing (../shared/spec/contract.md, "Versions of a published
 * listing"): its own file and version string, reviewed while the live listing stays served.
 */
export interface VersionRecord {
  id: string;
  asset_id: string;
  owner_id: string;
  version: string;
  /** Markdown, at most 10,000 characters. */
  release_notes: string;
  status: VersionStatus;
  file: AssetFileRecord | null;
  changes: VersionFieldChanges;
  /**
   * A new gallery: the images that replace the listing's when this version goes live (the first
   * primary), null when it keeps the listing's. Once superseded: the images its going live took
   * out of service, kept for a rollback (null when it changed none).
   */
  gallery: ImageRecord[] | null;
  review: VersionReview | null;
  /** When the version goes live once approved; null for at once. */
  release_at: string | null;
  /** The version that was live when this one went live: what a rollback of this one makes live again. */
  previous_id: string | null;
  created_at: string;
  updated_at: string;
  submitted_at: string | null;
  decided_at: string | null;
  /** Optimistic-concurrency counter, as a listing's. */
  revision: number;
}

export type VersionChanges = Partial<Pick<VersionRecord, 'version' | 'release_notes' | 'status' | 'file' | 'changes' | 'gallery' | 'review' | 'release_at' | 'previous_id' | 'submitted_at' | 'decided_at'>> & { updated_at: string };

export type CreateVersionResult = { outcome: 'created'; version: VersionRecord } | { outcome: 'open_exists'; open: VersionRecord } | { outcome: 'missing' };
export type UpdateVersionResult = { outcome: 'updated'; version: VersionRecord } | { outcome: 'stale' } | { outcome: 'missing' };

/** One swap of a listing's live version (approval or rollback), written at once. */
export interface VersionSwap {
  assetId: string;
  expectedAssetRevision: number;
  /** What the listing becomes: the incoming version's file, version string and field changes. */
  assetChanges: AssetChanges;
  /**
   * A new gallery: `gallery` (in order, the first primary) replaces every image of the listing, which
   * must be exactly the images `replacing` names (their ids, as read): else the swap is `stale` (an
   * image was added meanwhile). Left out, the listing's images stay.
   */
  images?: { gallery: ImageRecord[]; replacing: readonly string[] };
  /** The version going live (approved), at the revision read. */
  incoming: { id: string; expectedRevision: number; changes: VersionChanges };
  /** The version that was live (now superseded), or, the first time, the listing's first publication written as one. */
  outgoing: { id: string; expectedRevision: number; changes: VersionChanges } | { record: VersionRecord } | null;
  events: readonly OutboxEvent[];
}

export type VersionSwapResult = { outcome: 'swapped'; asset: AssetRecord; incoming: VersionRecord } | { outcome: 'stale' } | { outcome: 'missing' };

/**
 * Versions of published listings, a capability port of a storage (core/ports/storage.ts): a
 * store that has it serves version review; one without it answers the versions routes 404.
 * Every method is atomic on its own and returns copies, as StoragePort's.
 */
export interface VersionsPort {
  /**
   * Inserts a new version (its status draft) unless the listing has an open one (draft, pending or
   * changes_requested: `open_exists`, the open one) or is gone (`missing`). Of concurrent creations
   * for one listing exactly one MUST be `created`. `events` are written with it, only when created.
   */
  createVersion(version: VersionRecord, events?: readonly OutboxEvent[]): Promise<CreateVersionResult>;
  getVersion(id: string): Promise<VersionRecord | null>;
  /** A listing's versions, newest first (created_at desc, then id desc). */
  listVersions(assetId: string): Promise<VersionRecord[]>;
  /** Applies `changes` at `expectedRevision` (the revision then increments); `events` with it, only when updated. */
  updateVersion(id: string, expectedRevision: number, changes: VersionChanges, events?: readonly OutboxEvent[]): Promise<UpdateVersionResult>;
  /**
   * The swap of a listing's live version, in one transaction: the listing's changes at its revision,
   * the incoming version's at its revision, the outgoing version's at its revision (or inserted, the
   * first time), and the events. `stale` when any revision moved, changing nothing.
   */
  swapVersion(swap: VersionSwap): Promise<VersionSwapResult>;
  /**
   * Versions in `status` of every listing, oldest submission first (submitted_at asc, then id asc),
   * at most `limit`, after `after` (a submitted_at and an id) when given, and how many are in
   * `status` in all: the review queue (core/admin/queue.ts).
   */
  listVersionsInStatus(status: VersionStatus, limit: number, after?: ListPosition): Promise<{ items: VersionRecord[]; total: number }>;
  /**
   * Superseded versions that still hold a file and were last changed (superseded) before `before`
   * (an ISO time), oldest first (updated_at asc, then id asc), at most `limit`: what the retention
   * of superseded files may remove (core/operations/version-retention.ts).
   */
  listSupersededFiles(before: string, limit: number): Promise<VersionRecord[]>;
  /** Scheduled versions whose release_at is at or before `now` (an ISO time), earliest release first (then id), at most `limit`: what releaseDue makes live. */
  listDueVersions(now: string, limit: number): Promise<VersionRecord[]>;
}

/** A storage's versions capability, when it has one. */
export function versionsOf(storage: object): VersionsPort | undefined {
  const found = (storage as { versions?: VersionsPort }).versions;
  return found && typeof found.swapVersion === 'function' ? found : undefined;
}

/** Whether two lists of ids hold the same ids, in any order: a swap's `images.replacing` against the listing's images (adapters). */
export const sameIds = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
