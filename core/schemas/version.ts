/**
 * The schemas of a published listing's versions (../shared/spec/contract.md, "Versions of a
 * published listing"; docs/moderation.md, "Versions"): what a seller sends and what every surface
 * answers.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AssetFileSchema, AssetId, ImageSchema, PricingTypeSchema, limits } from './asset.js';
import { Nullable, Strict, Timestamp, Uuid, rule } from './common.js';
import { VersionReviewSchema, VersionStatusSchema } from './version-status.js';

export { PendingVersionSchema, VersionReviewSchema, VersionStatusSchema } from './version-status.js';
import { MultiLine, SingleLine } from './text.js';

export const versionLimits = {
  versionMax: 64,
  releaseNotesMax: 10_000,
} as const;

export const VersionString = Type.String({
  minLength: 1,
  maxLength: versionLimits.versionMax,
  pattern: '^[0-9A-Za-z.+-]+$',
  description: '1 to 64 letters, digits, ".", "+" and "-"; never used before by the listing; higher than every earlier one when both are semantic versions (2.0.0).',
  [rule]: '1 to 64 characters of letters, digits, ".", "+" and "-"',
});

/** The listing's fields a version may change; they go live with it. */
export const VersionChangesSchema = Strict(
  {
    title: Type.Optional(SingleLine({ minLength: limits.titleMin, maxLength: limits.titleMax, description: '3 to 200 characters after trimming, on one line.' })),
    description: Type.Optional(Nullable(MultiLine({ maxLength: limits.descriptionMax }))),
    tags: Type.Optional(Type.Array(SingleLine({ minLength: 1, maxLength: limits.tagMax }), { maxItems: limits.tagsMax })),
    pricing_type: Type.Optional(PricingTypeSchema),
    price: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: limits.priceMax }))),
  },
  { description: 'Field changes that go live with the version (title, description, tags, pricing_type, price). Once a version is superseded, the listing’s fields as they were while it was live: what a rollback to it restores.' },
);

const ReleaseAt = Nullable(
  Timestamp(
    'When set, an approved version waits (scheduled) and goes live at this time instead of at once; null or a time already past: at approval. ' +
      'Needs the plan feature scheduled_publishing, as a listing’s schedule does.',
  ),
);

const ReleaseNotes = MultiLine({ maxLength: versionLimits.releaseNotesMax, description: 'Markdown, at most 10,000 characters.' });

export const VersionSchema = Strict(
  {
    id: Uuid(),
    asset_id: Uuid(),
    version: Type.String(),
    release_notes: Type.String(),
    status: VersionStatusSchema,
    file: Nullable(AssetFileSchema),
    changes: VersionChangesSchema,
    gallery: Type.Union([Type.Array(ImageSchema), Type.Null()], { description: 'The images that replace the listing’s gallery when the version goes live (the first primary); null when it keeps the listing’s.' }),
    review: Nullable(VersionReviewSchema),
    release_at: Nullable(Timestamp()),
    created_at: Timestamp(),
    submitted_at: Nullable(Timestamp()),
    decided_at: Nullable(Timestamp()),
  },
  { $id: 'AssetVersion' },
);
export type VersionView = Static<typeof VersionSchema>;

export const VersionListSchema = Strict({ items: Type.Array(VersionSchema) }, { $id: 'AssetVersionList' });

export const VersionCreateBody = Strict({
  version: VersionString,
  release_notes: Type.Optional(ReleaseNotes),
  changes: Type.Optional(VersionChangesSchema),
  release_at: Type.Optional(ReleaseAt),
});
export type VersionCreateBody = Static<typeof VersionCreateBody>;

export const VersionUpdateBody = Strict(
  { version: Type.Optional(VersionString), release_notes: Type.Optional(ReleaseNotes), changes: Type.Optional(VersionChangesSchema), release_at: Type.Optional(ReleaseAt) },
  { minProperties: 1 },
);
export type VersionUpdateBody = Static<typeof VersionUpdateBody>;

export const VersionId = Type.String({ description: 'The version id (a UUID).' });

/** An operation's input on one version: the listing, the version and the body's fields. */
export const ForVersion = <P extends Record<string, import('@sinclair/typebox').TSchema> = {}>(body?: { properties: P }) =>
  Strict({ asset_id: AssetId, version_id: VersionId, ...((body?.properties ?? {}) as P) });
