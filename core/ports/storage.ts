import type { AssetStatus } from '../domain/asset-states.js';
import type { AccountRecord, TokenRecord, CategoryRecord, AssetRecord, ImageRecord, UploadState, IssuedUploadRecord, AssetChanges, AccountChanges, IdempotencyClaim, IdempotencyClaimResult, KeptAnswer } from './records.js';
import type { OutboxEvent } from './webhook-records.js';
import type { WebhookStorage } from './storage-webhooks.js';

/** The records (accounts, tokens, listings, images, uploads) and their changes: core/ports/records.ts. */
export type * from './records.js';
/** The webhook records (the outbox, endpoints, deliveries): core/ports/webhook-records.ts. */
export type * from './webhook-records.js';

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

export interface AssetQuery {
  ownerId: string;
  status?: AssetStatus;
  limit: number;
  offset: number;
}

/**
 * Where records live. Every method is atomic on its own: the core never reads and then writes
 * where a concurrent writer could slip between, it passes the revision it read and the adapter
 * compares and sets in one step. Methods return `null` or an `outcome` for the expected
 * misses and throw only when the store itself fails. Returned records are copies: mutating one
 * changes nothing stored.
 */
export interface StoragePort extends WebhookStorage {
  /** Inserts a new account. MUST throw when the id exists, or the username does ignoring ASCII case. */
  insertAccount(account: AccountRecord): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | null>;
  /** The account with this username, ignoring ASCII case (usernames are unique so); null when none. */
  findAccountByUsername(username: string): Promise<AccountRecord | null>;
  /** Accounts by username (byte order), a page of them, and how many there are. */
  listAccounts(limit: number, offset: number): Promise<{ items: AccountRecord[]; total: number }>;
  /** Applies `changes` to the account; null when it does not exist. */
  updateAccount(id: string, changes: AccountChanges): Promise<AccountRecord | null>;

  insertToken(token: TokenRecord): Promise<void>;
  /** The token with this hash, revoked or not; null when none. */
  findTokenByHash(hash: string): Promise<TokenRecord | null>;
  getToken(id: string): Promise<TokenRecord | null>;
  /** The account's tokens that are not revoked, newest first (created_at desc, id desc). */
  listTokens(accountId: string): Promise<TokenRecord[]>;
  /**
   * Marks the token revoked at `at` unless it already is (then it keeps its first revoked_at).
   * Returns the token as stored afterwards; null when the account has no token with this id.
   * After it resolves, `findTokenByHash` MUST show the revocation to every caller. `events` are
   * written with the revocation, in the same transaction (see "The outbox" below), only when this
   * call revoked the token.
   */
  revokeToken(accountId: string, id: string, at: string, events?: readonly OutboxEvent[]): Promise<TokenRecord | null>;
  /** Records a use of the token. May be skipped by callers within a minute of the last. */
  touchToken(id: string, at: string): Promise<void>;

  insertCategory(category: CategoryRecord): Promise<void>;
  getCategory(id: string): Promise<CategoryRecord | null>;
  /** All categories, by name. */
  listCategories(): Promise<CategoryRecord[]>;
  /** Gives the category a new name (its slug and id stay); null when there is no such category. */
  renameCategory(id: string, name: string): Promise<CategoryRecord | null>;

  /**
   * Inserts the asset unless another asset holds its slug. Of any number of concurrent calls
   * with one slug, exactly one MUST be `created`. `events` are written with it (the outbox), only when created.
   */
  createAsset(asset: AssetRecord, events?: readonly OutboxEvent[]): Promise<CreateAssetResult>;
  getAsset(id: string): Promise<AssetRecord | null>;
  /**
   * The owner's assets, optionally of one status, newest first (created_at desc, then id desc),
   * a page of them and the total that match.
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
   * of them and the total that match: the moderation queue.
   */
  listAssetsInStatus(status: AssetStatus, limit: number, offset: number): Promise<{ items: AssetRecord[]; total: number }>;
  /**
   * Deletes the asset with its images, if its revision is the expected one. Its issued uploads are
   * returned and kept as garbage (listUploadGarbage) until forgetUploads, in the same transaction,
   * so that a crash between the records and the blobs leaves nothing behind for good. `events` are
   * written with the deletion (the outbox), only when `deleted`.
   */
  deleteAsset(id: string, expectedRevision: number, events?: readonly OutboxEvent[]): Promise<DeleteAssetResult>;

  /** Records an issued upload URL (nothing when its asset is gone). */
  recordUpload(upload: IssuedUploadRecord): Promise<void>;
  /** The issued upload at this storage path; null when none was issued (or its asset is gone). */
  getUpload(storagePath: string): Promise<IssuedUploadRecord | null>;
  /**
   * Compare-and-set of an upload's state: moves it to `to` (and sets `size` when given) only if
   * its state is one of `from` and its asset still exists. False otherwise: another request moved
   * it first, or the listing was deleted. This is what makes a signed URL good for one upload.
   */
  setUploadState(storagePath: string, from: readonly UploadState[], to: UploadState, size?: number): Promise<boolean>;
  /**
   * Storage paths whose blobs are garbage, at most `limit` (the upload sweep, docs/security.md):
   * every upload of a deleted listing (deleteAsset keeps them for this, in its own transaction);
   * every upload not confirmed whose URL expired before `expiredBefore` (ISO 8601) and that no
   * record points at; every confirmed upload no record points at any more (a replaced file).
   */
  listUploadGarbage(expiredBefore: string, limit: number): Promise<string[]>;
  /** Forgets these uploads once their blobs are gone; listUploadGarbage no longer returns them. */
  forgetUploads(storagePaths: readonly string[]): Promise<void>;
  /** The bytes an account's uploads hold (uploaded or confirmed, of its listings): its storage use. */
  storageUse(accountId: string): Promise<number>;
  /**
   * A lease on a named job, so that a job many instances run on a timer runs on one at a time:
   * true when `holder` now holds `name` until `nowMs + ttlMs` (it was free, expired, or already
   * this holder's), false when another holder's lease has not expired. A holder gives its lease
   * back with a negative `ttlMs` (held until a moment already past).
   */
  tryLease(name: string, holder: string, nowMs: number, ttlMs: number): Promise<boolean>;
  /** The issued image upload with this public URL; null when none. */
  findUploadByPublicUrl(publicUrl: string): Promise<IssuedUploadRecord | null>;

  /**
   * Adds an image to the asset: position is the next one, is_primary is true only for the first
   * image of the asset. Refuses with `limit` when the asset already has `max` images. Atomic:
   * concurrent adds never exceed `max` nor make two primaries. `events` are written with the image (the
   * outbox), only when `added`.
   */
  addImage(image: Omit<ImageRecord, 'position' | 'is_primary'>, max: number, events?: readonly OutboxEvent[]): Promise<AddImageResult>;
  /** The asset's images, primary first, then by position. */
  listImages(assetId: string): Promise<ImageRecord[]>;

  /**
   * Claims an idempotency key for a request (docs/rest.md, "Safe retries"), keys being per account.
   * Atomic: of any number of concurrent claims of one free key, by any number of processes, exactly
   * one MUST be `claimed`. A key whose record expired (`ttlMs` after the claim that made it) is free;
   * so is one held by a run of the same fingerprint whose lease ran out. A record of another
   * fingerprint is `mismatch` until it expires, whatever its state.
   */
  claimIdempotencyKey(claim: IdempotencyClaim): Promise<IdempotencyClaimResult>;
  /**
   * Ends a claimed run: with an answer, keeps it for later claims of the same request (`done`) until
   * the record expires; with null, frees the key (a refusal that is not kept, such as 400). Only the
   * run that holds the key (`holder`) changes it: after its lease was taken over, this does nothing.
   */
  finishIdempotencyKey(accountId: string, key: string, holder: string, answer: KeptAnswer | null): Promise<void>;
  /** Removes up to `limit` key records that expired at or before `nowMs`; how many it removed. */
  purgeIdempotencyKeys(nowMs: number, limit: number): Promise<number>;


  /** Resolves when the store answers; throws when it does not (health check). */
  ping(): Promise<void>;

  /**
   * Optional. A number that differs from every earlier answer once any stored record may have
   * changed, whether this process or another one changed it; equal answers promise that nothing
   * did. The core asks once per request, first. With it, the core keeps what it read (the caller
   * of a token, the results of read-only operations) until the number changes (docs/performance.md,
   * "The read cache"); without it, every request reads the store. An answer that changes when
   * nothing changed only costs cache hits; one that stays the same across a change serves stale
   * data, so an adapter that cannot tell leaves this method out.
   *
   * The rule is about the answer and the records read after it: an answer never reflects a change
   * the records read after it do not show (a number that moves before the write is visible, such
   * as a WAL position, is not a version), and a call made after a write resolved, by any
   * process, answers a number that differs from every answer given before that write.
   *
   * Synchronous and cheap where the store can tell at once (memory, SQLite). A store that must ask
   * a server answers with a promise (PostgreSQL); the core awaits it only then, and a rejection
   * makes that one request read the store. An adapter may answer with a bounded delay instead,
   * when its documentation says so (PostgreSQL's `maxStalenessMs`).
   *
   * A token's last use (`touchToken`) need not move it: the core keeps the last use it recorded
   * itself, and no kept read shows it; nor need idempotency keys or the webhook methods' own writes
   * (endpoints, claims, attempts, purges), which no kept read shows. Every other write MUST.
   */
  changeVersion?(): number | Promise<number>;
}

/** The storage methods that only webhooks use (the outbox's own): what an adapter's webhook module implements. */
export type WebhookStorageMethods = WebhookStorage;

/**
 * The record with `changes` applied, for adapters that store whole records: a field whose change is
 * `undefined` keeps its value (a column has no undefined), and nothing of `changes` is shared with
 * the result.
 */
export function applyChanges<R extends object>(record: R, changes: Partial<R>): R {
  const merged = { ...record };
  for (const [key, value] of Object.entries(structuredClone(changes))) if (value !== undefined) (merged as Record<string, unknown>)[key] = value;
  return merged;
}
