import { Type, type Static, type TInteger, type TObject, type TProperties } from '@sinclair/typebox';
import { assetStatuses } from '../domain/asset-states.js';
import { Cursor, Nullable, Offset, Strict, StringEnum, Timestamp, Uuid, rule, publishedAs } from './common.js';
import { MultiLine, SingleLine } from './text.js';
import { PendingVersionSchema } from './version-status.js';

export const limits = {
  titleMin: 3,
  titleMax: 200,
  slugMax: 100,
  descriptionMax: 10_000,
  tagsMax: 20,
  tagMax: 50,
  batchMax: 25,
  pageMax: 100,
  pageDefault: 50,
  /** listAssets' q, after trimming. */
  searchMax: 100,
  imagesMax: 10,
  /** The highest price, in the marketplace's currency (docs/rest.md, "Assets"). */
  priceMax: 1_000_000,
} as const;

export const AssetStatusSchema = StringEnum(assetStatuses, { description: 'The listing status.' });
export const VisibilitySchema = StringEnum(['public', 'unlisted', 'private'] as const);
export const PricingTypeSchema = StringEnum(['fixed', 'free', 'pwyw'] as const, {
  description: 'free: no price; fixed: price > 0; pwyw: pay what you want, price is the minimum.',
});

/** The writable fields of a listing, each once; create and update are built from these. */
const writable = {
  title: SingleLine({ minLength: limits.titleMin, maxLength: limits.titleMax, description: '3 to 200 characters after trimming, on one line.' }),
  slug: Type.String({
    minLength: 1,
    maxLength: limits.slugMax,
    pattern: '^[a-z0-9-]+$',
    description: 'Lowercase letters, digits and hyphens; unique across the marketplace.',
    [rule]: '1 to 100 lowercase letters, digits and hyphens (^[a-z0-9-]+$)',
  }),
  description: Nullable(MultiLine({ maxLength: limits.descriptionMax })),
  pricing_type: PricingTypeSchema,
  price: Nullable(Type.Number({ minimum: 0, maximum: limits.priceMax, description: 'At least 0, at most 1,000,000, with at most 2 decimals.' })),
  tags: Type.Array(SingleLine({ minLength: 1, maxLength: limits.tagMax }), {
    maxItems: limits.tagsMax,
    description: 'At most 20; trimmed, duplicates removed case-insensitively.',
  }),
  visibility: VisibilitySchema,
  category_id: Nullable(Uuid('An existing category (see list_categories), or null.')),
  scheduled_publish_at: Nullable(
    Timestamp('When set in the future, submitting schedules the listing for review at that time. Needs the plan feature scheduled_publishing.'),
  ),
};

const { title, slug, ...optionalFields } = writable;

export const AssetCreateBody = Strict({ title, slug, ...Type.Partial(Type.Object(optionalFields)).properties });
export type AssetCreateBody = Static<typeof AssetCreateBody>;

export const AssetUpdateBody = Strict(Type.Partial(Type.Object(writable)).properties, { minProperties: 1 });
export type AssetUpdateBody = Static<typeof AssetUpdateBody>;

export const AssetId = Type.String({ description: 'The listing id (a UUID).' });

/** An operation's input: the listing it addresses and the fields of `body`, if any. */
export const ForAsset = <P extends TProperties = {}>(body?: TObject<P>) => Strict({ asset_id: AssetId, ...(body?.properties as P) });

export const AssetSchema = Strict(
  {
    id: Uuid(),
    title: Type.String(),
    slug: Type.String(),
    description: Nullable(Type.String()),
    status: AssetStatusSchema,
    visibility: VisibilitySchema,
    pricing_type: PricingTypeSchema,
    price: Nullable(Type.Number()),
    is_free: Type.Boolean(),
    version: Type.String(),
    category_id: Nullable(Uuid()),
    tags: Type.Array(Type.String()),
    scheduled_publish_at: Nullable(Timestamp()),
    download_count: Type.Integer(),
    view_count: Type.Integer(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { $id: 'Asset' },
);
export type Asset = Static<typeof AssetSchema>;

export const ImageSchema = Strict(
  {
    id: Uuid(),
    image_id: Uuid('The same value as id.'),
    public_url: Type.String(),
    storage_path: Type.String(),
    is_primary: Type.Boolean(),
    position: Type.Integer({ minimum: 0 }),
    created_at: Timestamp(),
  },
  { $id: 'Image' },
);
export type Image = Static<typeof ImageSchema>;

/** A new order of a gallery (arrange-images): every image of it once, the first to be the primary. */
export const ArrangeImagesBody = Strict({
  image_ids: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
    maxItems: limits.imagesMax,
    description: 'Every image id of the gallery exactly once, in the new order; the first becomes the primary image.',
  }),
});
export type ArrangeImagesBody = Static<typeof ArrangeImagesBody>;

export const ArrangedImagesSchema = Strict({ images: Type.Array(ImageSchema, { description: 'The gallery in its new order: the primary first, positions 0, 1, 2, ...' }) }, { $id: 'ArrangedImages' });
export type ArrangedImages = Static<typeof ArrangedImagesSchema>;

export const CategorySchema = Strict({ id: Uuid(), slug: Type.String(), name: Type.String() }, { $id: 'Category' });
export type Category = Static<typeof CategorySchema>;

export const AssetFileSchema = Strict(
  {
    storage_path: Type.String(),
    file_size: Type.Integer({ minimum: 0 }),
    content_type: Type.String(),
    confirmed_at: Timestamp(),
    sha256: Nullable(Type.String({ pattern: '^[0-9a-f]{64}$', description: 'The SHA-256 of the stored bytes (lower-case hex), computed by the server as they arrived; null for a file confirmed before checksums were kept.' })),
  },
  { $id: 'AssetFile' },
);
export type AssetFile = Static<typeof AssetFileSchema>;

const decision = {
  status: StringEnum(['published', 'rejected', 'changes_requested'] as const, { description: 'The status the decision moved the listing to.' }),
  reason: Nullable(Type.String({ description: 'Why: set for rejected and changes_requested, null for an approval.' })),
  reviewed_at: Timestamp(),
};

export const ReviewSchema = Strict(
  {
    ...decision,
    earlier: Type.Array(Strict(decision), { description: 'The decisions before this one, oldest first (at most 20): the listing\'s review history, each with its reason.' }),
  },
  { $id: 'Review', description: 'The last moderation decision on the listing, with the ones before it.' },
);
export type Review = Static<typeof ReviewSchema>;

export const AssetDetailSchema = Type.Composite(
  [
    Type.Omit(AssetSchema, []),
    Type.Object({
      images: Type.Array(ImageSchema),
      category: Nullable(CategorySchema),
      file: Nullable(AssetFileSchema),
      review: Nullable(ReviewSchema),
      pending_version: Type.Optional(Nullable(PendingVersionSchema)),
    }),
  ],
  { $id: 'AssetDetail', additionalProperties: false },
);
export type AssetDetail = Static<typeof AssetDetailSchema>;

export const AssetListQuery = Strict({
  status: Type.Optional(AssetStatusSchema),
  q: Type.Optional(
    SingleLine({
      minLength: 1,
      maxLength: limits.searchMax,
      description:
        'Only the listings whose title or slug contains this text: 1 to 100 characters after trimming (blank is refused), the letters A-Z ' +
        'without case and every other character exactly. With status too; a cursor is good for the q it was made with only.',
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: limits.pageMax, description: '1 to 100, default 50.' })),
  offset: Type.Optional(Offset()),
  cursor: Type.Optional(Cursor()),
});
export type AssetListQuery = Static<typeof AssetListQuery>;

export const PaginationSchema = Strict({
  limit: Type.Integer(),
  offset: Type.Integer(),
  total: Type.Integer(),
  has_more: Type.Boolean(),
});

/** A cursored list's pagination: `next_cursor` continues it (null on the last page); `offset` is 0 on a cursor page. */
export const CursorPaginationSchema = Strict({
  ...PaginationSchema.properties,
  next_cursor: Nullable(Type.String({ description: 'Pass as cursor for the next page; null on the last page.' })),
});

export const AssetListSchema = Strict({ data: Type.Array(AssetSchema), pagination: CursorPaginationSchema }, { $id: 'AssetList' });
export type AssetList = Static<typeof AssetListSchema>;

/** How many listings the caller has in each status: a seller's overview without paging through them all. */
export const AssetCountsSchema = Strict(
  {
    total: Type.Integer({ minimum: 0, description: 'All your listings, whatever their status.' }),
    by_status: Strict(Object.fromEntries(assetStatuses.map((status) => [status, Type.Integer({ minimum: 0 })])) as Record<(typeof assetStatuses)[number], TInteger>, {
      description: 'Your listings in each status, every status named (0 where there are none).',
    }),
  },
  { $id: 'AssetCounts' },
);

export const BatchCreateBody = Strict({
  assets: Type.Array(Type.Unknown({ [publishedAs]: AssetCreateBody }), {
    minItems: 1,
    maxItems: limits.batchMax,
    description: '1 to 25 create bodies; each is validated and created on its own.',
  }),
});
export type BatchCreateBody = Static<typeof BatchCreateBody>;

export const BatchItemResult = Type.Union([
  Strict({ index: Type.Integer(), status: Type.Literal(201), asset: AssetSchema }),
  Strict({
    index: Type.Integer(),
    status: Type.Integer(),
    error: Strict({ error: Type.String(), code: Type.String(), details: Type.Optional(Type.Array(Type.Unknown())) }),
  }),
]);

export const BatchResultSchema = Strict({
  results: Type.Array(BatchItemResult),
  summary: Strict({ total: Type.Integer(), succeeded: Type.Integer(), failed: Type.Integer() }),
  error: Type.Optional(Type.String()),
  code: Type.Optional(Type.Literal('BATCH_FAILED')),
});
export type BatchResult = Static<typeof BatchResultSchema>;

export const DeleteAssetResultSchema = Strict({ success: Type.Literal(true), id: Uuid() });
