import type { AssetStatus } from '../domain/asset-states.js';
import type { AssetChanges, AssetRecord, CategoryRecord, ImageRecord, IssuedUploadRecord } from './records.js';
import type { OutboxEvent } from './webhook-records.js';

export type CreateAssetResult = { outcome: 'created'; asset: AssetRecord } | { outcome: 'slug_taken' };

export type UpdateAssetResult =
  | { outcome: 'updated'; asset: AssetRecord; previous: AssetRecord }
  | { outcome: 'missing' }
  /** The record's revision was not the expected one: somebody else changed it first. */
  | { outcome: 'stale' }
  | { outcome: 'slug_taken' };

export type DeleteAssetResult =
  | { outcome: 'deleted'; asset: AssetRecord; images: ImageRecord[]; uploads: IssuedUploadRecord[] }
  | { outcome: 'missing' }
  | { outcome: 'stale' };

export type AddImageResult =
  | { outcome: 'added'; image: ImageRecord }
  /** This storage path was confirmed before: the existing image. */
  | { outcome: 'exists'; image: ImageRecord }
  | { outcome: 'limit' }
  | { outcome: 'missing' };

export type ArrangeImagesResult =
  /** The asset's images in their new order: the first is the primary, positions 0, 1, 2, ... */
  | { outcome: 'arranged'; images: ImageRecord[] }
  | { outcome: 'missing' }
  /** The ids are not the asset's images, each once: nothing changed; its images as they are. */
  | { outcome: 'mismatch'; images: ImageRecord[] };

/**
 * Where a keyset page starts: after the record with this sort key and id, in the list's order
 * (the sort key is the list's first order column: created_at, updated_at or username). The
 * record itself need not exist any more: a page after a deleted record starts where it was.
 */
export interface ListPosition {
  key: string;
  id: string;
}

export interface AssetQuery {
  ownerId: string;
  status?: AssetStatus;
  limit: number;
  /** Ignored (taken as 0) with `after`. */
  offset: number;
  /** A keyset page: the records after this position, whatever came or went before it. */
  after?: ListPosition;
  /**
   * Only the assets whose title or slug contains this text, the letters A-Z compared without case
   * and every other character exactly ("forest" finds "Dark FOREST"; "é" does not find "É"; `%`,
   * `_` and `\` are themselves). Non-empty. Its total is counted, not kept. The stores here ask a
   * word index of trigrams first (searchTrigrams), so that a text few listings hold costs the same
   * for a seller of 1,000 listings or 100,000; a text of one or two characters, or one that many
   * listings hold (on SQL stores more than 1,000 of the store; in memory more than the owner has),
   * reads the owner's own rows on the owner index: linear in the owner's listings, not in the
   * catalogue's (docs/adapters.md, "Search").
   */
  search?: string;
}

/** Text as AssetQuery.search compares it: A-Z folded to a-z, every other character as it is. */
export const foldAscii = (text: string): string => text.replace(/[A-Z]/g, (letter) => String.fromCharCode(letter.charCodeAt(0) + 32));

/**
 * The distinct runs of three characters (code points) of `text`, none for a shorter one: what a
 * store's word index keeps of a listing's folded title and slug, and asks of a search's folded text.
 */
export function searchTrigrams(text: string): string[] {
  const points = [...text];
  const grams = new Set<string>();
  for (let i = 0; i + 3 <= points.length; i++) grams.add(points[i]! + points[i + 1]! + points[i + 2]!);
  return [...grams];
}

/** The asset's title or slug contains `folded` (foldAscii of a search): AssetQuery.search's rule, for stores that filter in code. */
export const assetMatches = (asset: { title: string; slug: string }, folded: string): boolean =>
  foldAscii(asset.title).includes(folded) || foldAscii(asset.slug).includes(folded);

/**
 * The categories listings are filed under (the operator's to make): a capability port of StoragePort.
 */
export interface CategoriesPort {
  insertCategory(category: CategoryRecord): Promise<void>;
  getCategory(id: string): Promise<CategoryRecord | null>;
  /** All categories, by name. */
  listCategories(): Promise<CategoryRecord[]>;
  /** Gives the category a new name (its slug and id stay); null when there is no such category. */
  renameCategory(id: string, name: string): Promise<CategoryRecord | null>;
}

/**
 * Listings: assets and their images. Every write that takes `events` writes them with
 * its change, in one transaction (the outbox: core/ports/storage-webhooks.ts). One of the
 * capability ports that make up StoragePort (core/ports/storage.ts).
 * Every method is atomic on its own and returns copies (core/ports/storage.ts, StoragePort).
 */
export interface ListingsPort {
  /**
   * Inserts the asset unless another asset holds its slug. Of any number of concurrent calls
   * with one slug, exactly one MUST be `created`. `events` are written with it (the outbox), only when created.
   */
  createAsset(asset: AssetRecord, events?: readonly OutboxEvent[]): Promise<CreateAssetResult>;
  getAsset(id: string): Promise<AssetRecord | null>;
  /**
   * The owner's assets, optionally of one status, newest first (created_at desc, then id desc),
   * a page of them (from `offset`, or after `after`) and the total that match. The total is kept
   * by the store (not counted per call) and is exact after every committed write; a page costs
   * about the same at any size of catalogue and any position (docs/adapters.md, "Lists at scale").
   * With `search`, the matching assets only, their total counted (AssetQuery.search).
   */
  listAssets(query: AssetQuery): Promise<{ items: AssetRecord[]; total: number }>;
  /**
   * Applies `changes` only if the stored revision equals `expectedRevision`, and increments the
   * revision. A slug change MUST keep slugs unique (`slug_taken`). `previous` is the record as
   * it was, so that a replaced file can be cleaned up. `events` are written with the change (the
   * outbox), only when `updated`.
   */
  updateAsset(id: string, expectedRevision: number, changes: AssetChanges, events?: readonly OutboxEvent[]): Promise<UpdateAssetResult>;
  /**
   * Scheduled assets whose scheduled_publish_at is at or before `nowIso` (ISO 8601, compared as
   * instants), earliest first (scheduled_publish_at asc, then id asc), at most `limit` of them.
   * A read only: releasing one is an `updateAsset` with the revision returned here, so that of
   * any number of concurrent releases exactly one changes it.
   */
  listDueScheduled(nowIso: string, limit: number): Promise<AssetRecord[]>;
  /**
   * Every owner's assets in one status, oldest change first (updated_at asc, then id asc), a page
   * of them (from `offset`, or after `after`, offset then ignored) and the total that match: the
   * moderation queue. The total is kept as listAssets' is.
   */
  listAssetsInStatus(status: AssetStatus, limit: number, offset: number, after?: ListPosition): Promise<{ items: AssetRecord[]; total: number }>;
  /**
   * Optional: inserts many new assets at once, without events, for benchmarks and test seeding
   * (a bulk path: one transaction, batched statements). Ids and slugs MUST be new; the result is as
   * if each were created by createAsset. Use `seedListings()` (core/ports/seed-listings.ts), which
   * falls back to createAsset one by one for a store without it.
   */
  seedListings?(assets: readonly AssetRecord[]): Promise<void>;
  /**
   * Deletes the asset with its images, if its revision is the expected one. Its issued uploads are
   * returned and kept as garbage (listUploadGarbage) until forgetUploads, in the same transaction,
   * so that a crash between the records and the blobs leaves nothing behind for good. `events` are
   * written with the deletion (the outbox), only when `deleted`.
   */
  deleteAsset(id: string, expectedRevision: number, events?: readonly OutboxEvent[]): Promise<DeleteAssetResult>;

  /**
   * Adds an image to the asset: position is the next one, is_primary is true only for the first
   * image of the asset. Refuses with `limit` when the asset already has `max` images. Atomic:
   * concurrent adds never exceed `max` nor make two primaries. `events` are written with the image (the
   * outbox), only when `added`.
   */
  addImage(image: Omit<ImageRecord, 'position' | 'is_primary'>, max: number, events?: readonly OutboxEvent[]): Promise<AddImageResult>;
  /**
   * Puts the asset's images in the order of `orderedIds`, which MUST name every image of the asset
   * exactly once (otherwise `mismatch`, nothing changed): the first becomes the only primary, the
   * positions become 0, 1, 2, ... Atomic, and ordered with addImage: an image added concurrently is
   * either in the gallery this call checks (and then `mismatch` when not named) or added after it,
   * never two primaries nor a lost image. `events` are written with it (the outbox), only when `arranged`.
   */
  arrangeImages(assetId: string, orderedIds: readonly string[], events?: readonly OutboxEvent[]): Promise<ArrangeImagesResult>;
  /** The asset's images, primary first, then by position. */
  listImages(assetId: string): Promise<ImageRecord[]>;
  /**
   * Optional: getAsset and listImages of it in one read, where the store answers that in one
   * round trip (PostgreSQL); null when there is no such asset. Without it, the core reads the two
   * one after the other (core/operations/asset-rules.ts, loadOwnedAssetWithImages).
   */
  getAssetWithImages?(id: string): Promise<{ asset: AssetRecord; images: ImageRecord[] } | null>;
}
