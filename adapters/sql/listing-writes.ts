/**
 * The writes of categories' listings and their images (listings.ts puts them on the port): each is
 * one statement or one transaction that locks the rows it reads before it writes, and writes the
 * change's events on that transaction (`writeEvents`, webhooks.ts).
 */
import { applyChanges, copyRecord, type AssetRecord, type ListingsPort, type OutboxEvent } from '../../core/ports/storage.js';
import type { EventCtes } from './event-ctes.js';
import type { ListingStatements } from './listing-statements.js';
import type { offsetAnchors } from './offset-anchors.js';
import { recordReader } from './rows.js';
import type { SqlDatabase, SqlSession } from './session.js';
import { insertRowsInto } from './statements.js';
import { assets, encode, images, uploads, updatedColumns } from './tables.js';

/** What the listing methods share: the database, its statements, how a change writes its events. */
export interface SqlListings {
  db: SqlDatabase;
  s: ListingStatements;
  writeEvents: (tx: SqlSession, events: readonly OutboxEvent[]) => Promise<void>;
  /** Where one statement writes a listing with its events (PostgreSQL). */
  eventCtes: EventCtes | undefined;
  read: ReturnType<typeof recordReader>;
  anchors: ReturnType<typeof offsetAnchors>;
  /**
   * The one-statement create's text for each number of events, made on first use: built and
   * hashed again on every create (the named statement's key is the text) it cost about 35 µs.
   */
  createTexts: string[];
}

/** Rows per INSERT of seedListings: 21 parameters each, well under SQLite's 32,766 and PostgreSQL's 65,535. */
const seedBatch = 500;

/** Thrown inside updateAsset's transaction to roll it back when the new slug is taken. */
class SlugTaken extends Error {}

const createText = (l: SqlListings, ctes: EventCtes, events: number) =>
  (l.createTexts[events] ??= `WITH created AS (${l.s.createAsset} RETURNING id),\n    ${ctes.sql('created', events)}\n  SELECT count(*) AS created FROM created`);

/** A create on its own: one statement, or a transaction where the events need statements of their own. */
export function createOne(l: SqlListings): ListingsPort['createAsset'] {
  const { db, s, eventCtes } = l;
  return async (asset: AssetRecord, events?: readonly OutboxEvent[]) => {
    if (events?.length && eventCtes) {
      // One statement (PostgreSQL): the listing, its events and their deliveries, atomic as any
      // statement is, with no BEGIN and COMMIT round trips; the events only if the listing was inserted.
      const [row] = await db.all(createText(l, eventCtes, events.length), [...encode(db.dialect, assets, asset), ...eventCtes.params(events)]);
      return Number(row?.created) === 0 ? ({ outcome: 'slug_taken' } as const) : ({ outcome: 'created', asset: copyRecord(asset) } as const);
    }
    const create = async (on: SqlSession) => {
      if ((await on.run(s.createAsset, encode(db.dialect, assets, asset))) === 0) return { outcome: 'slug_taken' } as const;
      if (events?.length) await l.writeEvents(on, events);
      return { outcome: 'created', asset: copyRecord(asset) } as const;
    };
    // Without events the insert is the whole change: one statement, no transaction needed.
    return events?.length ? db.transaction(create) : create(db);
  };
}

export async function seedListings({ db }: SqlListings, records: readonly AssetRecord[]): Promise<void> {
  if (records.length === 0) return;
  // One transaction, multi-row INSERTs of seedBatch rows (one prepared statement for every full batch).
  await db.transaction(async (tx) => {
    for (let at = 0; at < records.length; at += seedBatch) {
      const batch = records.slice(at, at + seedBatch);
      await tx.run(insertRowsInto(assets, batch.length), batch.flatMap((asset) => encode(db.dialect, assets, asset)));
    }
  });
}

export function updateAsset({ db, s, writeEvents }: SqlListings): ListingsPort['updateAsset'] {
  return async (id, expectedRevision, changes, events) => {
    try {
      return await db.transaction(async (tx) => {
        const previous = await recordReader(tx).one(assets, s.getAssetForUpdate, id);
        if (!previous) return { outcome: 'missing' } as const;
        if (previous.revision !== expectedRevision) return { outcome: 'stale' } as const;
        const asset = { ...applyChanges(previous, changes), revision: previous.revision + 1 };
        try {
          if ((await tx.run(s.updateAsset, [...encode(db.dialect, assets, asset, updatedColumns(assets)), expectedRevision])) === 0) return { outcome: 'stale' } as const;
        } catch (error) {
          // The slug's unique index refused the new slug: roll back, answer slug_taken.
          if (db.dialect.isUniqueViolation(error, 'assets_by_slug')) throw new SlugTaken();
          throw error;
        }
        // A replaced file is garbage from this commit on (port: listUploadGarbage).
        const replaced = previous.file?.storage_path;
        if (changes.file !== undefined && replaced && replaced !== changes.file?.storage_path) await tx.run(s.queueGarbage, [replaced]);
        await writeEvents(tx, events ?? []);
        return { outcome: 'updated', asset, previous } as const;
      });
    } catch (error) {
      if (error instanceof SlugTaken) return { outcome: 'slug_taken' };
      throw error;
    }
  };
}

export function deleteAsset({ db, s, writeEvents }: SqlListings): ListingsPort['deleteAsset'] {
  return (id, expectedRevision, events) =>
    db.transaction(async (tx) => {
      const read = recordReader(tx);
      const asset = await read.one(assets, s.getAssetForDelete, id);
      if (!asset) return { outcome: 'missing' } as const;
      if (asset.revision !== expectedRevision) return { outcome: 'stale' } as const;
      const gallery = await read.all(images, s.listImages, id);
      const issued = (await read.all(uploads, s.uploadsOfAsset, id)).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.storage_path.localeCompare(b.storage_path));
      await tx.run(s.deleteImagesOfAsset, [id]);
      // Every upload of the listing is garbage from this commit on, until forgetUploads.
      await tx.run(s.queueGarbageOfAsset, [id]);
      await tx.run(s.deleteUploadsOfAsset, [id]);
      await tx.run(s.deleteAsset, [id, expectedRevision]);
      await writeEvents(tx, events ?? []);
      return { outcome: 'deleted', asset, images: gallery, uploads: issued } as const;
    });
}

export function addImage({ db, s, writeEvents }: SqlListings): ListingsPort['addImage'] {
  return (image, max, events) =>
    db.transaction(async (tx) => {
      const read = recordReader(tx);
      // The asset's row lock orders concurrent adds: each counts after the previous one committed.
      if ((await tx.all(s.lockAssetForImage, [image.asset_id])).length === 0) return { outcome: 'missing' } as const;
      const same = await read.one(images, s.imageByPath, image.asset_id, image.storage_path);
      if (same) return { outcome: 'exists', image: same } as const;
      const [stats] = await tx.all(s.imageStats, [image.asset_id]);
      const count = Number(stats?.count ?? 0);
      if (count >= max) return { outcome: 'limit' } as const;
      const added = { ...copyRecord(image), position: stats?.last == null ? 0 : Number(stats.last) + 1, is_primary: count === 0 };
      await tx.run(s.insertImage, encode(db.dialect, images, added));
      await writeEvents(tx, events ?? []);
      return { outcome: 'added', image: copyRecord(added) } as const;
    });
}

export function arrangeImages({ db, s, writeEvents }: SqlListings): ListingsPort['arrangeImages'] {
  return (assetId, orderedIds, events) =>
    db.transaction(async (tx) => {
      // The asset's row lock, as addImage takes it: a concurrent add is in the gallery read here, or comes after the commit.
      if ((await tx.all(s.lockAssetForImage, [assetId])).length === 0) return { outcome: 'missing' } as const;
      const gallery = await recordReader(tx).all(images, s.listImages, assetId);
      const named = new Set(orderedIds);
      if (named.size !== orderedIds.length || named.size !== gallery.length || gallery.some((image) => !named.has(image.id))) return { outcome: 'mismatch', images: gallery } as const;
      await tx.run(s.clearImageOrder, [db.dialect.boolean(false), assetId]);
      for (const [position, id] of orderedIds.entries()) await tx.run(s.placeImage, [position, db.dialect.boolean(position === 0), id, assetId]);
      await writeEvents(tx, events ?? []);
      const byId = new Map(gallery.map((image) => [image.id, image]));
      return { outcome: 'arranged', images: orderedIds.map((id, position) => ({ ...byId.get(id)!, position, is_primary: position === 0 })) } as const;
    });
}
