/** The records the storage port (core/ports/storage.ts) holds, and the changes it applies to them. */
import type { SellerStatus } from '../domain/accounts.js';
import type { AssetStatus } from '../domain/asset-states.js';
import type { Scope } from '../domain/scopes.js';

export type { SellerStatus };
export type Visibility = 'public' | 'unlisted' | 'private';
export type PricingType = 'fixed' | 'free' | 'pwyw';

export interface Socials {
  twitter: string | null;
  youtube: string | null;
  twitch: string | null;
  tiktok: string | null;
  discord: string | null;
  github: string | null;
  website: string | null;
}

export interface Hire {
  available: boolean;
  rate: string | null;
  contact: string | null;
}

export interface AccountRecord {
  id: string;
  username: string;
  display_name: string | null;
  bio: string | null;
  website: string | null;
  avatar_url: string | null;
  country: string | null;
  seller_status: SellerStatus;
  is_restricted: boolean;
  is_suspended: boolean;
  /** Acts on the review queue in the dashboard (docs/dashboard.md, "Roles"). */
  is_moderator: boolean;
  /** Manages accounts and roles in the dashboard; a moderator too. */
  is_operator: boolean;
  payouts_connected: boolean;
  subscription_tier: string;
  /** Plan features such as `scheduled_publishing`. */
  plan_features: string[];
  socials: Socials;
  hire: Hire;
  created_at: string;
  updated_at: string;
}

export interface TokenRecord {
  id: string;
  account_id: string;
  name: string;
  /** The first characters of the token, for recognising it in a list. */
  prefix: string;
  /** Hex SHA-256 of the whole token. The token itself is never stored. */
  hash: string;
  scopes: Scope[];
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface CategoryRecord {
  id: string;
  slug: string;
  name: string;
}

export interface AssetFileRecord {
  storage_path: string;
  file_size: number;
  content_type: string;
  confirmed_at: string;
  /** The SHA-256 of the bytes (lower-case hex), taken as they arrived; absent on files confirmed before it was kept. */
  sha256?: string | null;
}

/** One moderation decision on a listing. */
export interface AssetDecision {
  /** The status the decision moved the listing to. */
  status: 'published' | 'rejected' | 'changes_requested';
  /** Why, for a rejection or a request for changes; null for an approval. */
  reason: string | null;
  reviewed_at: string;
}

/** The last moderation decision on a listing, shown to its seller, with the ones before it. */
export interface AssetReview extends AssetDecision {
  /**
   * The decisions before this one, oldest first, at most reviewHistoryLimit (core/domain/review-history.ts);
   * absent on a review written before the history was kept (read as none).
   */
  earlier?: AssetDecision[];
}

export interface AssetRecord {
  id: string;
  owner_id: string;
  title: string;
  slug: string;
  description: string | null;
  status: AssetStatus;
  visibility: Visibility;
  pricing_type: PricingType;
  price: number | null;
  is_free: boolean;
  version: string;
  category_id: string | null;
  tags: string[];
  scheduled_publish_at: string | null;
  download_count: number;
  view_count: number;
  file: AssetFileRecord | null;
  /** The last moderation decision; null until there is one. */
  review: AssetReview | null;
  created_at: string;
  updated_at: string;
  /**
   * Optimistic-concurrency counter, 1 on create, incremented by every successful update.
   * Never sent to clients.
   */
  revision: number;
}

export interface ImageRecord {
  id: string;
  asset_id: string;
  storage_path: string;
  public_url: string;
  content_type: string;
  file_size: number;
  is_primary: boolean;
  position: number;
  created_at: string;
}

/**
 * Where an issued upload is in its life (docs/security.md, "Uploads"): `issued` until a PUT through
 * the core's own route begins (`receiving`), `uploaded` once that PUT completed (a URL is good for
 * one completed upload), `confirmed` once confirm-file or confirm-image moved the bytes to the
 * storage path. Stores that take uploads themselves (S3) go from `issued` straight to `confirmed`.
 */
export type UploadState = 'issued' | 'receiving' | 'appending' | 'uploaded' | 'confirmed';

/** A signed upload URL handed out: confirm-file and confirm-image accept only these. */
export interface IssuedUploadRecord {
  storage_path: string;
  asset_id: string;
  kind: 'file' | 'image';
  /** Set for images: the address confirm-image is called with. */
  public_url: string | null;
  expires_at: string;
  created_at: string;
  state: UploadState;
  /** The bytes the upload holds once known (uploaded or confirmed); null before. */
  size: number | null;
}

/** The fields of an asset that an update may change; everything else is fixed or derived. */
export type AssetChanges = Partial<
  Pick<
    AssetRecord,
    | 'title'
    | 'slug'
    | 'description'
    | 'status'
    | 'visibility'
    | 'pricing_type'
    | 'price'
    | 'is_free'
    | 'version'
    | 'category_id'
    | 'tags'
    | 'scheduled_publish_at'
    | 'file'
    | 'review'
  >
> & { updated_at: string };

export type AccountChanges = Partial<Omit<AccountRecord, 'id' | 'created_at'>> & { updated_at: string };

/**
 * What a write answered, kept under its idempotency key (docs/rest.md, "Safe retries"): 200 and
 * the operation's result as JSON text, or the refusal's HTTP status and its `{ error, code }` body.
 */
export interface KeptAnswer {
  status: number;
  body: string;
}

/** A request's claim on an idempotency key: `claimIdempotencyKey`. */
export interface IdempotencyClaim {
  accountId: string;
  /** The client's key, 1 to 255 printable ASCII characters. */
  key: string;
  /** Names the request (surface, operation, input): the same key with another fingerprint is another request. */
  fingerprint: string;
  /** Who runs the request if the claim is won: a fresh id per request. */
  holder: string;
  nowMs: number;
  /** How long a run holds the key: past it, a run that never finished (its process died) gives the key up. */
  leaseMs: number;
  /** How long the key and its answer are kept, from `nowMs`. */
  ttlMs: number;
}

export type IdempotencyClaimResult =
  /** The key is this request's to run: it was free, expired, or held by a run of the same request whose lease ran out. */
  | { outcome: 'claimed' }
  /** The same request holds the key and is still running. */
  | { outcome: 'running'; leaseUntilMs: number }
  /** The same request ran: its kept answer. */
  | { outcome: 'done'; answer: KeptAnswer }
  /** Another request (another fingerprint) holds the key, running or done. */
  | { outcome: 'mismatch' };
