import * as v from 'valibot';
import type { Marketplace } from '../core/marketplace.js';
import { assetStatuses, type AssetStatus } from '../core/domain/asset-states.js';
import { scopes as allScopes, type Scope } from '../core/domain/scopes.js';
import { ConfigurationError, isApiError } from '../core/errors.js';
import { blobUrlPath } from '../core/operations/blob-urls.js';
import { newAssetRecord } from '../core/operations/assets.js';
import { sanitizeFilename } from '../core/operations/issued-uploads.js';
import type { OperationContext } from '../core/operations/context.js';
import { checkWithSchema, parseOptions } from '../core/options.js';
import { AccountInputSchema, type AccountInput } from '../core/schemas/account.js';
import { AssetCreateBody } from '../core/schemas/asset.js';
import { validate } from '../core/validation.js';
import type { AccountRecord, AssetRecord } from '../core/ports/storage.js';
import { seedListings } from '../core/ports/seed-listings.js';
import { applySeedVersion, SeedFile, seedFileBytes, SeedVersion, seedVersionProblem } from './seed-versions.js';

const where = 'marketkit/testing seed';

const ScopeList = v.array(v.picklist(allScopes, `scopes must be among ${allScopes.join(', ')}`));

/** An account of admin.createAccount (core/schemas/account.ts, checked in parseSeed) with the scopes of its token (default: all of them). */
const SeedAccount = v.looseObject({ username: v.string('username must be a string'), scopes: v.optional(ScopeList) });


const SeedImage = v.strictObject({ filename: v.optional(v.string()), type: v.optional(v.picklist(['png', 'webp', 'jpeg']), 'png') });

const SeedAsset = v.looseObject({
  /** The username of the owner: a seeded account or a fixture (seller, second-seller, ...). */
  owner: v.string('owner must be a username'),
  status: v.optional(v.picklist(assetStatuses, `status must be one of ${assetStatuses.join(', ')}`), 'draft'),
  /** The slug of a seeded category. */
  category: v.optional(v.string()),
  /** The moderator's reason, for rejected and changes_requested. */
  review_reason: v.optional(v.string()),
  /** A confirmed file; `true` for a small placeholder. */
  file: v.optional(v.union([v.literal(true), SeedFile])),
  /** Gallery images (the first is primary); a number for that many placeholder PNGs. */
  images: v.optional(v.union([v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10)), v.pipe(v.array(SeedImage), v.maxLength(10))])),
  download_count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  view_count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** A published listing's open version (seed-versions.ts). */
  version: v.optional(SeedVersion),
});

const SeedSchema = v.strictObject({
  accounts: v.optional(v.array(SeedAccount), []),
  categories: v.optional(v.array(v.strictObject({ slug: v.string(), name: v.string() })), []),
  assets: v.optional(v.array(SeedAsset), []),
});

/**
 * A starting state as plain data (JSON as it is, so the HTTP controls take the same): accounts with
 * a token each, categories, and listings in any status with their file and images.
 */
export type Seed = v.InferInput<typeof SeedSchema>;
export type ParsedSeed = v.InferOutput<typeof SeedSchema>;

/** Checks a seed before anything is written; a mistake throws a ConfigurationError naming it. */
export function parseSeed(seed: unknown, reserved: readonly string[]): ParsedSeed {
  const parsed = parseOptions(SeedSchema, seed ?? {}, where);
  const usernames = new Set(reserved);
  parsed.accounts.forEach(({ scopes: _scopes, ...account }, index) => checkWithSchema(AccountInputSchema, account, where, `accounts.${index}`));
  for (const account of parsed.accounts) {
    if (usernames.has(account.username)) throw new ConfigurationError(where, `username ${account.username} is taken (the fixtures use ${reserved.join(', ')})`);
    usernames.add(account.username);
  }
  const categories = new Set<string>();
  for (const category of parsed.categories) {
    if (categories.has(category.slug)) throw new ConfigurationError(where, `category ${category.slug} appears twice`);
    categories.add(category.slug);
  }
  const slugs = new Set<string>();
  parsed.assets.forEach((asset, index) => {
    if (!usernames.has(asset.owner)) throw new ConfigurationError(where, `assets[${index}].owner ${asset.owner} is neither a seeded account nor a fixture`);
    if (asset.category !== undefined && !categories.has(asset.category)) throw new ConfigurationError(where, `assets[${index}].category ${asset.category} is not a seeded category`);
    const slug = (asset as { slug?: unknown }).slug;
    if (typeof slug === 'string' && slugs.has(slug)) throw new ConfigurationError(where, `assets[${index}].slug ${slug} appears twice`);
    if (typeof slug === 'string') slugs.add(slug);
    const needsFile = !['draft'].includes(asset.status);
    if (needsFile && asset.file === undefined) throw new ConfigurationError(where, `assets[${index}] is ${asset.status}, which needs a file: add file: true`);
    const versionProblem = asset.version && seedVersionProblem(asset.status, asset.version);
    if (versionProblem) throw new ConfigurationError(where, `assets[${index}]${versionProblem.startsWith('.') ? '' : ' '}${versionProblem}`);
  });
  return parsed;
}

export const placeholderImages: Record<'png' | 'webp' | 'jpeg', Uint8Array> = {
  png: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]),
  webp: new Uint8Array([...new TextEncoder().encode('RIFF'), 26, 0, 0, 0, ...new TextEncoder().encode('WEBPVP8 ')]),
  jpeg: Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0]),
};

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** The origin seeded image URLs are built on (an in-process kit has no address of its own). */
export const seedOrigin = 'http://marketkit.test';

/**
 * Writes a parsed seed through the admin functions and the ports, as the embedding marketplace
 * would. Returns the token of each seeded account, by username.
 */
export async function applySeed(
  marketplace: Marketplace,
  seed: ParsedSeed,
  accountByUsername: (username: string) => Promise<AccountRecord | null>,
): Promise<Map<string, { id: string; token: string; tokenId: string; scopes: Scope[] }>> {
  const { admin, ports } = marketplace;
  const tokens = new Map<string, { id: string; token: string; tokenId: string; scopes: Scope[] }>();
  for (const { scopes, ...account } of seed.accounts) {
    const created = await admin.createAccount({ seller_status: 'approved', ...(account as AccountInput) });
    const tokenScopes = scopes ?? [...allScopes];
    const issued = await admin.createToken({ accountId: created.id, name: 'seed', scopes: tokenScopes });
    tokens.set(account.username, { id: created.id, token: issued.token, tokenId: issued.record.id, scopes: tokenScopes });
  }
  const categoryIds = new Map<string, string>();
  for (const category of seed.categories) categoryIds.set(category.slug, (await admin.createCategory(category)).id);

  // The store's bulk path (seedListings): a seed of 100,000 listings loads in seconds. Slugs are unique within the seed (checked above).
  const plain: AssetRecord[] = [];
  for (const [index, entry] of seed.assets.entries()) {
    const { owner, status, category, review_reason, file, images, download_count, view_count, version, ...body } = entry;
    const account = (await accountByUsername(owner))!;
    const at = (path: string, error: unknown): never => {
      throw new ConfigurationError(where, `assets[${index}]${path}: ${error instanceof Error ? error.message : String(error)}`);
    };
    const ctx = { caller: { account, scopes: new Set(allScopes), tokenId: null, credential: 'session' }, ports, settings: marketplace.settings, siteUrl: seedOrigin } as unknown as OperationContext;
    let record: AssetRecord;
    try {
      const input = validate(AssetCreateBody, { ...body, ...(category ? { category_id: categoryIds.get(category) } : {}) });
      record = await newAssetRecord(ctx, input);
    } catch (error) {
      return at('', isApiError(error) && error.code === 'PRECONDITION_FAILED' ? `${error.message} Give the owner plan_features: ["scheduled_publishing"].` : error);
    }
    const now = record.created_at;
    if (file !== undefined) {
      const { bytes, filename, content_type } = seedFileBytes(file);
      const storagePath = `assets/${record.id}/files/${ports.ids.uuid()}/${sanitizeFilename(filename)}`;
      await ports.blobs.put(storagePath, once(bytes), { contentType: content_type, maxBytes: Number.MAX_SAFE_INTEGER });
      record.file = { storage_path: storagePath, file_size: bytes.byteLength, content_type, confirmed_at: now };
    }
    record.status = status as AssetStatus;
    if (status === 'published' || status === 'archived') record.review = { status: 'published', reason: null, reviewed_at: now };
    if (status === 'rejected' || status === 'changes_requested') record.review = { status, reason: review_reason ?? 'Seeded review.', reviewed_at: now };
    if (download_count !== undefined) record.download_count = download_count;
    if (view_count !== undefined) record.view_count = view_count;
    const imageList = typeof images === 'number' ? Array.from({ length: images }, (): { filename?: string; type?: 'png' | 'webp' | 'jpeg' } => ({ type: 'png' })) : (images ?? []);
    // A listing with nothing beside its record goes in with the rest, in one bulk load after the loop.
    if (!record.file && imageList.length === 0) {
      plain.push(record);
      continue;
    }
    const created = await ports.storage.createAsset(record);
    if (created.outcome !== 'created') at('.slug', `the slug ${record.slug} is taken`);
    // A seeded file is a confirmed upload, counted in the account's storage use like any other.
    if (record.file) {
      const { storage_path, file_size } = record.file;
      await ports.storage.recordUpload({ storage_path, asset_id: record.id, kind: 'file', public_url: null, expires_at: now, created_at: now, state: 'confirmed', size: file_size });
    }
    for (const [n, image] of imageList.entries()) {
      const type = image.type ?? 'png';
      const bytes = placeholderImages[type];
      const filename = image.filename ?? `image-${n + 1}.${type === 'jpeg' ? 'jpg' : type}`;
      const storagePath = `assets/${record.id}/images/${ports.ids.uuid()}/${sanitizeFilename(filename)}`;
      const publicUrl = seedOrigin + blobUrlPath(storagePath);
      await ports.blobs.put(storagePath, once(bytes), { contentType: `image/${type}`, maxBytes: Number.MAX_SAFE_INTEGER });
      await ports.storage.recordUpload({ storage_path: storagePath, asset_id: record.id, kind: 'image', public_url: publicUrl, expires_at: now, created_at: now, state: 'confirmed', size: bytes.byteLength });
      await ports.storage.addImage(
        { id: ports.ids.uuid(), asset_id: record.id, storage_path: storagePath, public_url: publicUrl, content_type: `image/${type}`, file_size: bytes.byteLength, created_at: now },
        10,
      );
    }
    if (version) await applySeedVersion(marketplace, record, version, at);
  }
  await seedListings(ports.storage, plain);
  return tokens;
}
