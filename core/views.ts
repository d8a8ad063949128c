import type { Asset, AssetDetail, AssetFile, Category, Image } from './schemas/asset.js';
import type { Profile } from './schemas/profile.js';
import type { Token } from './schemas/token.js';
import type { AccountRecord, AssetFileRecord, AssetRecord, CategoryRecord, ImageRecord, TokenRecord } from './ports/storage.js';
import { earlierOf } from './domain/review-history.js';

/** Records as the wire shows them: the only place that decides which stored fields a client sees. */
export function assetView(record: AssetRecord): Asset {
  return {
    id: record.id,
    title: record.title,
    slug: record.slug,
    description: record.description,
    status: record.status,
    visibility: record.visibility,
    pricing_type: record.pricing_type,
    price: record.price,
    is_free: record.is_free,
    version: record.version,
    category_id: record.category_id,
    tags: [...record.tags],
    scheduled_publish_at: record.scheduled_publish_at,
    download_count: record.download_count,
    view_count: record.view_count,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

export function imageView(record: ImageRecord): Image {
  return {
    id: record.id,
    image_id: record.id,
    public_url: record.public_url,
    storage_path: record.storage_path,
    is_primary: record.is_primary,
    position: record.position,
    created_at: record.created_at,
  };
}

export function fileView(record: AssetFileRecord): AssetFile {
  return {
    storage_path: record.storage_path,
    file_size: record.file_size,
    content_type: record.content_type,
    confirmed_at: record.confirmed_at,
    sha256: record.sha256 ?? null,
  };
}

export function categoryView(record: CategoryRecord): Category {
  return { id: record.id, slug: record.slug, name: record.name };
}

export function assetDetailView(record: AssetRecord, images: ImageRecord[], category: CategoryRecord | null): AssetDetail {
  // The listing's view with four fields added, not spread into a new literal with them: V8 builds
  // such a literal on a slower path than one of known shape, and every listing read from storage
  // would pay for it (docs/performance.md, "The detail view without a spread; results kept on the
  // second ask").
  const detail = assetView(record) as AssetDetail;
  detail.images = images.map(imageView);
  detail.category = category ? categoryView(category) : null;
  detail.file = record.file ? fileView(record.file) : null;
  detail.review = record.review ? { status: record.review.status, reason: record.review.reason, reviewed_at: record.review.reviewed_at, earlier: earlierOf(record.review) } : null;
  return detail;
}

export function profileView(account: AccountRecord): Profile {
  return {
    id: account.id,
    username: account.username,
    display_name: account.display_name,
    bio: account.bio,
    website: account.website,
    avatar_url: account.avatar_url,
    country: account.country,
    is_seller: account.seller_status === 'approved',
    seller_status: account.seller_status,
    is_restricted: account.is_restricted,
    payouts_connected: account.payouts_connected,
    subscription_tier: account.subscription_tier,
    socials: { ...account.socials },
    hire: { ...account.hire },
    created_at: account.created_at,
    updated_at: account.updated_at,
  };
}

export function tokenView(record: TokenRecord): Token {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    scopes: [...record.scopes],
    created_at: record.created_at,
    last_used_at: record.last_used_at,
    expires_at: record.expires_at,
  };
}
