import type { AccountRecord, AssetRecord, CategoryRecord, ImageRecord, IssuedUploadRecord, StoredEvent, TokenRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from '../../core/ports/storage.js';
import type { UploadStateRecord } from '../../core/ports/upload-state.js';
import type { VersionRecord } from '../../core/ports/versions.js';
import type { DashboardSessionRecord, SignInLinkRecord } from '../../core/ports/dashboard.js';
import type { PasskeyChallengeRecord, PasskeyRecord } from '../../core/ports/passkeys.js';
import type { AuditEntry } from '../../core/ports/audit.js';
import type { DialectName, SqlDialect, SqlRow } from './session.js';

/**
 * Every table, its columns declared once for every dialect (the migrations, adapters/sql/migrations/,
 * create them; test/ports/schema-tables.test.ts holds this file to both databases' live schemas:
 * a column declared but missing, present but undeclared, or of another kind, fails). How a field
 * is kept in its column: `text`, `integer`, `float`;
 * `bigint` (sizes, milliseconds; PostgreSQL answers it as a string, read with Number: every value
 * stored is a safe integer); `boolean` (SQLite keeps 0 and 1: the dialect says); `json` (text, as
 * written, key order included; a driver that parses it hands the value).
 */
export type ColumnKind = 'text' | 'integer' | 'bigint' | 'float' | 'boolean' | 'json';

/** A table as the schema has it: its columns on every dialect, and what one dialect alone has. */
export interface SchemaTable {
  name: string;
  columns: Readonly<Record<string, ColumnKind>>;
  /** Columns beside a record's fields that the adapter keeps for itself (leases, a reservation): never part of the record. */
  own?: Readonly<Record<string, ColumnKind>>;
  /** The table is this dialect's alone. */
  only?: DialectName;
  /** Columns one dialect alone has. */
  dialectColumns?: Partial<Record<DialectName, Readonly<Record<string, ColumnKind>>>>;
}

/** A table and how each field of its record maps to a column of the same name. */
export interface RecordTable<R> extends SchemaTable {
  key: keyof R & string;
  columns: { [K in keyof R]-?: ColumnKind };
  /** The columns as a list, for decoding rows without walking an object's keys. */
  fields: [column: string, kind: ColumnKind][];
}

const table = <R>(name: string, key: keyof R & string, columns: { [K in keyof R]-?: ColumnKind }, own?: Record<string, ColumnKind>): RecordTable<R> => ({
  name,
  key,
  columns,
  fields: Object.entries(columns) as [string, ColumnKind][],
  ...(own && { own }),
});

export const accounts = table<AccountRecord>('accounts', 'id', {
  id: 'text',
  username: 'text',
  display_name: 'text',
  bio: 'text',
  website: 'text',
  avatar_url: 'text',
  country: 'text',
  seller_status: 'text',
  is_restricted: 'boolean',
  is_suspended: 'boolean',
  is_moderator: 'boolean',
  is_operator: 'boolean',
  payouts_connected: 'boolean',
  subscription_tier: 'text',
  plan_features: 'json',
  socials: 'json',
  hire: 'json',
  created_at: 'text',
  updated_at: 'text',
});

export const tokens = table<TokenRecord>('tokens', 'id', {
  id: 'text',
  account_id: 'text',
  name: 'text',
  prefix: 'text',
  hash: 'text',
  scopes: 'json',
  created_at: 'text',
  last_used_at: 'text',
  expires_at: 'text',
  revoked_at: 'text',
});

export const categories = table<CategoryRecord>('categories', 'id', { id: 'text', slug: 'text', name: 'text' });

export const assets = table<AssetRecord>('assets', 'id', {
  id: 'text',
  owner_id: 'text',
  title: 'text',
  slug: 'text',
  description: 'text',
  status: 'text',
  visibility: 'text',
  pricing_type: 'text',
  price: 'float',
  is_free: 'boolean',
  version: 'text',
  category_id: 'text',
  tags: 'json',
  scheduled_publish_at: 'text',
  download_count: 'bigint',
  view_count: 'bigint',
  file: 'json',
  review: 'json',
  created_at: 'text',
  updated_at: 'text',
  revision: 'integer',
});

export const images = table<ImageRecord>('images', 'id', {
  id: 'text',
  asset_id: 'text',
  storage_path: 'text',
  public_url: 'text',
  content_type: 'text',
  file_size: 'bigint',
  is_primary: 'boolean',
  position: 'integer',
  created_at: 'text',
});

export const uploads = table<IssuedUploadRecord>('uploads', 'storage_path', {
  storage_path: 'text',
  asset_id: 'text',
  kind: 'text',
  public_url: 'text',
  expires_at: 'text',
  created_at: 'text',
  state: 'text',
  size: 'bigint',
}, { reserved: 'bigint', owner_id: 'text' });

export const webhookEndpoints = table<WebhookEndpointRecord>('webhook_endpoints', 'id', {
  id: 'text',
  account_id: 'text',
  url: 'text',
  description: 'text',
  event_types: 'json',
  enabled: 'boolean',
  disabled_reason: 'text',
  disabled_at: 'text',
  secret: 'text',
  previous_secret: 'text',
  previous_secret_expires_at: 'text',
  failing_since: 'text',
  created_at: 'text',
  updated_at: 'text',
});

export const webhookEvents = table<StoredEvent>('webhook_events', 'id', { id: 'text', type: 'text', account_id: 'text', subject_id: 'text', created_at: 'text', data: 'text', traceparent: 'text', sequence: 'bigint' });

/** Who holds a row's lease, until when (epoch ms): the adapter's own columns. */
const lease = { lease_holder: 'text', lease_until_ms: 'bigint' } as const;

/** A delivery's record, and its lease, the adapter's own. */
export const webhookDeliveries = table<WebhookDeliveryRecord>('webhook_deliveries', 'id', {
  id: 'text',
  account_id: 'text',
  endpoint_id: 'text',
  event_id: 'text',
  event_type: 'text',
  event_sequence: 'bigint',
  status: 'text',
  attempts: 'json',
  next_attempt_ms: 'bigint',
  redelivery_of: 'text',
  created_at: 'text',
  updated_at: 'text',
}, lease);

/** An upload in progress (core/ports/upload-state.ts), and its append lease, the adapter's own. */
export const uploadStates = table<UploadStateRecord>('upload_states', 'storage_path', {
  storage_path: 'text',
  length: 'bigint',
  offset: 'bigint',
  hash_state: 'text',
  sha256: 'text',
  store_upload_id: 'text',
  parts: 'json',
  store_key: 'text',
  expires_at: 'text',
  updated_at: 'text',
}, lease);

// The tables whose rows are no record of the ports: each read and written by hand in its capability's file.
export const studioRecords: SchemaTable = {
  name: 'studio_records',
  columns: { id: 'text', kind: 'text', owner_id: 'text', project_id: 'text', parent_id: 'text', position: 'integer', data: 'json', created_at: 'text', updated_at: 'text', revision: 'integer', keys: 'json' },
};
export const studioKeys: SchemaTable = { name: 'studio_keys', columns: { project_id: 'text', kind: 'text', key: 'text', record_id: 'text' } };
export const idempotencyKeys: SchemaTable = {
  name: 'idempotency_keys',
  columns: { account_id: 'text', key: 'text', fingerprint: 'text', holder: 'text', lease_until_ms: 'bigint', expires_at_ms: 'bigint', answer_status: 'integer', answer_body: 'text' },
};
export const jobLeases: SchemaTable = { name: 'job_leases', columns: { name: 'text', holder: 'text', until_ms: 'bigint' } };
export const uploadGarbage: SchemaTable = { name: 'upload_garbage', columns: { storage_path: 'text' } };
/** The kept list totals (docs/adapters.md, "Lists at scale"); PostgreSQL spreads a seller's over shards too. */
export const assetCounts: SchemaTable = { name: 'asset_counts', columns: { owner_id: 'text', status: 'text', total: 'bigint', moves: 'bigint' }, dialectColumns: { postgres: { shard: 'integer' } } };
export const rowCounts: SchemaTable = { name: 'row_counts', columns: { name: 'text', shard: 'integer', total: 'bigint', moves: 'bigint' } };
/** The read cache's versions: SQLite's callers' counter, PostgreSQL's sixteen rows (adapters/sql/migrations/006-change-version.ts). */
export const callerCounter: SchemaTable = { name: 'marketkit_callers', only: 'sqlite', columns: { id: 'integer', version: 'integer' } };
/**
 * SQLite's word index of the listings (migration 28; written by triggers, read by MATCH only):
 * FTS5's table (its columns are text) and the keys of its rows. PostgreSQL's is an index on assets.
 */
export const searchKeys: SchemaTable = { name: 'asset_search_keys', only: 'sqlite', columns: { id: 'integer', asset_id: 'text' } };
export const searchWords: SchemaTable = { name: 'asset_search', only: 'sqlite', columns: { words: 'text' } };
export const changeRows: SchemaTable = { name: 'marketkit_changes', only: 'postgres', columns: { shard: 'integer', version: 'bigint', callers: 'bigint' } };
/** Versions of published listings (migration 20; adapters/sql/versions.ts). */
export const assetVersions = table<VersionRecord>('asset_versions', 'id', {
  id: 'text',
  asset_id: 'text',
  owner_id: 'text',
  version: 'text',
  release_notes: 'text',
  status: 'text',
  file: 'json',
  changes: 'json',
  gallery: 'json',
  review: 'json',
  release_at: 'text',
  previous_id: 'text',
  created_at: 'text',
  updated_at: 'text',
  submitted_at: 'text',
  decided_at: 'text',
  revision: 'integer',
});

/** The audit log of the dashboard's moderators and operators (migration 24; adapters/sql/audit.ts). */
export const auditLog = table<AuditEntry>('audit_log', 'id', { id: 'text', at: 'text', actor_id: 'text', actor: 'text', action: 'text', subject: 'text', reason: 'text' });

/** The dashboard's sign-in links and sessions (migration 23; adapters/sql/dashboard.ts): hashes only. */
export const signInLinks = table<SignInLinkRecord>('dashboard_sign_in_links', 'hash', { hash: 'text', account_id: 'text', created_at: 'text', expires_at: 'text' });
export const dashboardSessions = table<DashboardSessionRecord>('dashboard_sessions', 'hash', { hash: 'text', account_id: 'text', form_token: 'text', created_at: 'text', seen_at: 'text', expires_at: 'text' });
/** The dashboard's passkeys and their challenges (migration 25; adapters/sql/passkeys.ts). */
export const passkeys = table<PasskeyRecord>('dashboard_passkeys', 'id', { id: 'text', account_id: 'text', name: 'text', public_key: 'text', counter: 'bigint', transports: 'json', created_at: 'text', last_used_at: 'text' });
export const passkeyChallenges = table<PasskeyChallengeRecord>('dashboard_passkey_challenges', 'hash', { hash: 'text', purpose: 'text', account_id: 'text', created_at: 'text', expires_at: 'text' });

/** The migrations' bookkeeping (adapters/sql/migrations/runner.ts). */
export const migrationHistory: SchemaTable = { name: 'marketkit_migrations', columns: { version: 'integer', name: 'text', applied_at: 'text' } };

/** Every table the migrations make. */
export const schemaTables: readonly SchemaTable[] = [
  ...[accounts, tokens, categories, assets, images, uploads, webhookEndpoints, webhookEvents, webhookDeliveries, uploadStates, assetVersions, signInLinks, dashboardSessions, passkeys, passkeyChallenges, auditLog],
  ...[studioRecords, studioKeys, idempotencyKeys, jobLeases, uploadGarbage, assetCounts, rowCounts, callerCounter, changeRows, searchKeys, searchWords, migrationHistory],
];

/** The tables and columns a database of `dialect` has, as declared here: table -> column -> kind. */
export function declaredSchema(dialect: DialectName): Map<string, Map<string, ColumnKind>> {
  return new Map(
    schemaTables
      .filter((t) => !t.only || t.only === dialect)
      .map((t) => [t.name, new Map(Object.entries({ ...t.columns, ...t.own, ...t.dialectColumns?.[dialect] }))]),
  );
}

/** Column names that are reserved words in some dialect (PostgreSQL's OFFSET), quoted wherever a statement names them. */
const reserved = new Set(['offset']);

/** A column as a statement names it: quoted when it is a reserved word (both dialects take "double quotes"). */
export const sqlName = (column: string): string => (reserved.has(column) ? `"${column}"` : column);

export const columnsOf = <R>(t: RecordTable<R>): (keyof R & string)[] => Object.keys(t.columns) as (keyof R & string)[];

/** The columns, comma-separated, in record order: an INSERT's column list. */
export const columnList = <R>(t: RecordTable<R>): string => columnsOf(t).map(sqlName).join(', ');

/** Every column but the key, then the key: an UPDATE's parameters are `encode(dialect, t, r, updatedColumns(t))`. */
export const updatedColumns = <R>(t: RecordTable<R>): (keyof R & string)[] => [...columnsOf(t).filter((c) => c !== t.key), t.key];

/** The record's fields as parameters, in column order (`only` picks and orders a subset), each as `dialect` keeps it. */
export function encode<R, K extends keyof R & string = keyof R & string>(dialect: SqlDialect, t: RecordTable<R>, record: Pick<R, K>, only: readonly K[] = columnsOf(t) as K[]): unknown[] {
  return only.map((column) => {
    const value = record[column];
    if (value === null || value === undefined) return null;
    const kind = t.columns[column];
    // Explicitly JSON: node-postgres would send a JavaScript array as a PostgreSQL array.
    if (kind === 'json') return JSON.stringify(value);
    return kind === 'boolean' ? dialect.boolean(value as boolean) : value;
  });
}

/** A JSON column's or expression's value: text where the driver hands text (SQLite), as given where it parses JSON (node-postgres). */
export const jsonValue = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

/** A row as the record type: numbers as numbers, booleans as booleans, JSON parsed, NULL as null. */
export function decode<R>(t: RecordTable<R>, row: SqlRow): R {
  const record: Record<string, unknown> = {};
  for (const [column, kind] of t.fields) {
    const value = row[column] ?? null;
    if (value === null) record[column] = null;
    else if (kind === 'bigint' || kind === 'integer' || kind === 'float') record[column] = Number(value);
    else if (kind === 'boolean') record[column] = value === true || value === 1;
    else if (kind === 'json') record[column] = jsonValue(value);
    else record[column] = value;
  }
  return record as R;
}
