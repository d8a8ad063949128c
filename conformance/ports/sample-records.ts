import type { AccountRecord, AssetRecord, ImageRecord, IssuedUploadRecord, OutboxEvent, TokenRecord, WebhookEndpointRecord } from '../../core/ports/storage.js';

/** Records for the storage suite: every field set, so that each one's round trip is checked. */
let sequence = 0;
const next = () => ++sequence;

/** An ISO timestamp `minutes` after a fixed start, so that orderings are chosen, not left to chance. */
export const at = (minutes: number) => new Date(Date.UTC(2026, 0, 15, 12, 0, 0) + minutes * 60_000).toISOString();

export function accountRecord(overrides: Partial<AccountRecord> = {}): AccountRecord {
  return {
    id: crypto.randomUUID(),
    username: `seller-${next()}`,
    display_name: 'A Seller',
    bio: null,
    website: 'https://seller.example',
    avatar_url: null,
    country: 'DE',
    seller_status: 'approved',
    is_restricted: false,
    is_suspended: false,
    is_moderator: false,
    is_operator: false,
    payouts_connected: true,
    subscription_tier: 'pro',
    plan_features: ['scheduled_publishing'],
    socials: { twitter: '@seller', youtube: null, twitch: null, tiktok: null, discord: null, github: 'seller', website: null },
    hire: { available: true, rate: '50/h', contact: null },
    created_at: at(0),
    updated_at: at(0),
    ...overrides,
  };
}

export function tokenRecord(accountId: string, overrides: Partial<TokenRecord> = {}): TokenRecord {
  const n = next();
  return {
    id: crypto.randomUUID(),
    account_id: accountId,
    name: `token ${n}`,
    prefix: `smcp_${String(n).padStart(7, '0')}`,
    hash: crypto.randomUUID().replace(/-/g, '') + crypto.randomUUID().replace(/-/g, ''),
    scopes: ['profile:read', 'assets:read', 'assets:write'],
    created_at: at(n),
    last_used_at: null,
    expires_at: null,
    revoked_at: null,
    ...overrides,
  };
}

export function assetRecord(ownerId: string, overrides: Partial<AssetRecord> = {}): AssetRecord {
  const n = next();
  return {
    id: crypto.randomUUID(),
    owner_id: ownerId,
    title: `Castle Pack ${n}`,
    slug: `castle-pack-${n}`,
    description: null,
    status: 'draft',
    visibility: 'public',
    pricing_type: 'fixed',
    price: 9.99,
    is_free: false,
    version: '1.0.0',
    category_id: null,
    tags: ['castle', 'Medieval'],
    scheduled_publish_at: null,
    download_count: 0,
    view_count: 0,
    file: null,
    review: null,
    created_at: at(n),
    updated_at: at(n),
    revision: 1,
    ...overrides,
  };
}

export function uploadRecord(assetId: string, kind: IssuedUploadRecord['kind'] = 'file', overrides: Partial<IssuedUploadRecord> = {}): IssuedUploadRecord {
  const path = `assets/${assetId}/${kind === 'file' ? 'files' : 'images'}/${crypto.randomUUID()}/${kind === 'file' ? 'pack.zip' : 'shot.png'}`;
  return {
    storage_path: path,
    asset_id: assetId,
    kind,
    public_url: kind === 'image' ? `https://market.example/api/v1/blobs/${path}` : null,
    state: 'issued',
    size: null,
    expires_at: at(120),
    created_at: at(0),
    ...overrides,
  };
}

export function imageInput(assetId: string): Omit<ImageRecord, 'position' | 'is_primary'> {
  const upload = uploadRecord(assetId, 'image');
  return {
    id: crypto.randomUUID(),
    asset_id: assetId,
    storage_path: upload.storage_path,
    public_url: upload.public_url!,
    content_type: 'image/png',
    file_size: 1234,
    created_at: at(1),
  };
}

/** An endpoint of the account subscribed to every type, enabled, with a secret that is only text to the store. */
export function endpointRecord(accountId: string, overrides: Partial<WebhookEndpointRecord> = {}): WebhookEndpointRecord {
  const n = next();
  return {
    id: crypto.randomUUID(),
    account_id: accountId,
    url: `https://hooks.seller.example/marketkit/${n}`,
    description: `Endpoint ${n} — Schloß ✓`,
    event_types: ['*'],
    enabled: true,
    disabled_reason: null,
    disabled_at: null,
    secret: `whsec_${btoa(String(n).padStart(24, 'k'))}`,
    previous_secret: null,
    previous_secret_expires_at: null,
    failing_since: null,
    created_at: at(n),
    updated_at: at(n),
    ...overrides,
  };
}

/**
 * An event about `subjectId` at `minutes` after the suite's start, whose data is text a careless
 * column would change (non-ASCII, a line separator, key order).
 */
export function outboxEvent(accountId: string, subjectId: string, type = 'asset.updated', minutes = 1, overrides: Partial<OutboxEvent> = {}): OutboxEvent {
  return {
    id: crypto.randomUUID(),
    type,
    account_id: accountId,
    subject_id: subjectId,
    created_at: at(minutes),
    data: JSON.stringify({ z: 'Schloß ✓ \u2028', a: [1, 2.5, null], asset: { id: subjectId } }),
    traceparent: null,
    ...overrides,
  };
}
