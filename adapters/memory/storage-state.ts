import type { AccountRecord, AssetRecord, CategoryRecord, ImageRecord, IssuedUploadRecord, KeptAnswer, StoredEvent, TokenRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from '../../core/ports/storage.js';
import type { VersionRecord } from '../../core/ports/versions.js';
import type { DashboardSessionRecord, SignInLinkRecord } from '../../core/ports/dashboard.js';
import type { PasskeyChallengeRecord, PasskeyRecord } from '../../core/ports/passkeys.js';
import type { AuditEntry } from '../../core/ports/audit.js';
import { copyRecord } from '../../core/ports/storage.js';
import { LayeredMap, type ChangeCounter } from './layered-map.js';

/** Records as they are kept: copies go in and copies come out, as with a real database. */
export const copy = copyRecord;

export const newestFirst = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  a.created_at === b.created_at ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.created_at < b.created_at ? 1 : -1;

/**
 * Everything a memory store holds. Stored records are never changed in place (every change
 * stores a new object), so the maps can share them with snapshots: a snapshot freezes each map
 * and a restore puts the frozen maps back, in constant time (layered-map.ts).
 */
export interface MemoryStorageState {
  accounts: LayeredMap<string, AccountRecord>;
  tokens: LayeredMap<string, TokenRecord>;
  categories: LayeredMap<string, CategoryRecord>;
  assets: LayeredMap<string, AssetRecord>;
  images: LayeredMap<string, ImageRecord>;
  uploads: LayeredMap<string, IssuedUploadRecord>;
  /** Bytes reserved by uploads not confirmed yet (storage path -> bytes; core/ports/uploads.ts, reserveUpload). */
  reservations: LayeredMap<string, number>;
  /** Storage paths of deleted listings' uploads whose blobs may still exist (path -> path). */
  garbage: LayeredMap<string, string>;
  /** Job leases: name -> holder and until when. */
  leases: LayeredMap<string, { holder: string; untilMs: number }>;
  /** Idempotency keys: `account id \n key` -> the record (storage-keys.ts). */
  idempotency: LayeredMap<string, IdempotencyRecord>;
  /** Webhooks (storage-webhooks.ts): endpoints by id, the outbox's events by id, deliveries by id with their lease. */
  webhookEndpoints: LayeredMap<string, WebhookEndpointRecord>;
  webhookEvents: LayeredMap<string, StoredEvent>;
  webhookDeliveries: LayeredMap<string, LeasedDelivery>;
  /** The last event sequence given: under the key `last`. */
  outboxSequence: LayeredMap<string, number>;
  /** Versions of published listings by id (storage-versions.ts). */
  versions: LayeredMap<string, VersionRecord>;
  /** slug -> asset id */
  slugs: LayeredMap<string, string>;
  /** hash -> token id */
  tokensByHash: LayeredMap<string, string>;
  /** The dashboard's sign-in links by hash (storage-dashboard.ts). */
  signInLinks: LayeredMap<string, SignInLinkRecord>;
  /** The dashboard's sessions by hash. */
  dashboardSessions: LayeredMap<string, DashboardSessionRecord>;
  /** The dashboard's passkeys by credential id, and their challenges by hash (storage-passkeys.ts). */
  passkeys: LayeredMap<string, PasskeyRecord>;
  passkeyChallenges: LayeredMap<string, PasskeyChallengeRecord>;
  /** The audit log by entry id (storage-audit.ts). */
  auditLog: LayeredMap<string, AuditEntry>;
}

export const stateKeys = [
  'accounts',
  'tokens',
  'categories',
  'assets',
  'images',
  'uploads',
  'reservations',
  'garbage',
  'leases',
  'idempotency',
  'webhookEndpoints',
  'webhookEvents',
  'webhookDeliveries',
  'outboxSequence',
  'versions',
  'slugs',
  'tokensByHash',
  'signInLinks',
  'dashboardSessions',
  'passkeys',
  'passkeyChallenges',
  'auditLog',
] as const;

/** A delivery as the memory store keeps it: the record and who holds it until when. */
export interface LeasedDelivery {
  record: WebhookDeliveryRecord;
  leaseHolder: string | null;
  leaseUntilMs: number | null;
}

/** An idempotency key as the memory store keeps it. */
export interface IdempotencyRecord {
  fingerprint: string;
  holder: string;
  leaseUntilMs: number;
  expiresAtMs: number;
  /** Null while its request runs. */
  answer: KeptAnswer | null;
}

/** Maps whose writes need not move changeVersion (no kept read shows them: core/ports/storage.ts). */
const uncounted: ReadonlySet<string> = new Set(['reservations', 'idempotency', 'webhookEndpoints', 'webhookEvents', 'webhookDeliveries', 'outboxSequence', 'signInLinks', 'dashboardSessions', 'passkeys', 'passkeyChallenges', 'auditLog']);

/** Maps whose writes move the callers' version too (core/ports/change-version.ts, changeVersions). */
const callerKeys: ReadonlySet<string> = new Set(['accounts', 'tokens', 'tokensByHash']);

/** `changes` counts every kept read's writes; `callers` those to accounts and tokens as well. */
export function emptyState(changes: ChangeCounter, callers: ChangeCounter = { count: 0 }): MemoryStorageState {
  // A write to accounts or tokens counts on both counters (a map takes one: this one moves both).
  const both: ChangeCounter = {
    get count() {
      return changes.count;
    },
    set count(_next) {
      changes.count++;
      callers.count++;
    },
  };
  const counter = (key: string) => (uncounted.has(key) ? { count: 0 } : callerKeys.has(key) ? both : changes);
  return Object.fromEntries(stateKeys.map((key) => [key, new LayeredMap(new Map(), counter(key))])) as unknown as MemoryStorageState;
}
