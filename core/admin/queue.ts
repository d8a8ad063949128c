/**
 * The review queue (../shared/spec/contract.md, "Versions of a published listing": "the queue holds
 * listings and versions, oldest submission first, each item saying which it is"): pending listings
 * (by their last change, the submission) and pending versions of published listings (by
 * submitted_at) in one list, each item its record with `kind`, paged by offset or cursor like every
 * admin list. `kind=listing` or `kind=version` keeps one of the two.
 */
import { Type, type Static } from '@sinclair/typebox';
import { readPage } from '../operations/list-cursor.js';
import type { Ports } from '../operations/context.js';
import type { ListPosition } from '../ports/listings.js';
import type { AssetRecord } from '../ports/records.js';
import { versionsOf, type VersionRecord } from '../ports/versions.js';
import { AssetSchema } from '../schemas/asset.js';
import { StringEnum, Strict } from '../schemas/common.js';
import { VersionSchema } from '../schemas/version.js';
import { assetView } from '../views.js';
import { versionView } from '../versions/version-records.js';
import { adminPageDefault, PageQuery, pageFields } from './schemas.js';

export const QueueQuery = Strict({
  ...PageQuery.properties,
  kind: Type.Optional(StringEnum(['listing', 'version'] as const, { description: 'Only new listings (listing) or only versions of published listings (version); both when left out.' })),
});
type QueueQuery = Static<typeof QueueQuery>;

const ListingItem = Type.Composite([Type.Omit(AssetSchema, []), Strict({ kind: Type.Literal('listing', { description: 'A new listing waiting for review.' }) })], { additionalProperties: false });
const VersionItem = Type.Composite([Type.Omit(VersionSchema, []), Strict({ kind: Type.Literal('version', { description: 'A new version of a published listing waiting for review.' }) })], { additionalProperties: false });

export const QueueSchema = Strict(
  { items: Type.Array(Type.Union([ListingItem, VersionItem], { description: 'A listing or a version, as `kind` says.' })), ...pageFields },
  { $id: 'ModerationQueue' },
);

/** One item of the merged queue: its record, and where it sorts (its submission time, then its id). */
type Entry = { id: string; key: string } & ({ kind: 'listing'; record: AssetRecord } | { kind: 'version'; record: VersionRecord });

const before = (a: Entry, b: Entry) => (a.key === b.key ? (a.id < b.id ? -1 : 1) : a.key < b.key ? -1 : 1);

/**
 * `count` entries of the merged queue from its start (or after `after`), each source read for that
 * many: the first `count` of the merge are among them. An offset page reads offset + limit + 1 of each
 * (the admin lists' offsets are for moderators paging by hand; the cursor reads only a page).
 */
async function readQueue(ports: Pick<Ports, 'storage'>, kind: QueueQuery['kind'], count: number, after?: ListPosition): Promise<{ items: Entry[]; total: number }> {
  const versions = kind === 'listing' ? undefined : versionsOf(ports.storage);
  const [listings, pending] = await Promise.all([
    kind === 'version' ? { items: [], total: 0 } : ports.storage.listAssetsInStatus('pending', count, 0, after),
    versions ? versions.listVersionsInStatus('pending', count, after) : { items: [], total: 0 },
  ]);
  const items: Entry[] = [
    ...listings.items.map((record) => ({ kind: 'listing' as const, id: record.id, key: record.updated_at, record })),
    ...pending.items.map((record) => ({ kind: 'version' as const, id: record.id, key: record.submitted_at ?? '', record })),
  ];
  return { items: items.sort(before).slice(0, count), total: listings.total + pending.total };
}

export async function moderationQueue(ports: Pick<Ports, 'storage'>, input: QueueQuery) {
  const { items, ...page } = await readPage(
    'queue',
    input,
    adminPageDefault,
    async (limit, offset, after) => {
      const read = await readQueue(ports, input.kind, offset + limit, after);
      return { items: read.items.slice(offset), total: read.total };
    },
    (entry) => entry.key,
  );
  return { items: items.map((entry) => (entry.kind === 'listing' ? { ...assetView(entry.record), kind: entry.kind } : { ...versionView(entry.record), kind: entry.kind })), ...page };
}
