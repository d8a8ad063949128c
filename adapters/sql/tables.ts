import type { AccountRecord, AssetRecord, CategoryRecord, ImageRecord, IssuedUploadRecord, StoredEvent, TokenRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from '../../core/ports/storage.js';
import type { UploadStateRecord } from '../../core/ports/upload-state.js';
import type { SqlDialect, SqlRow } from './session.js';

/**
 * Every record table, its columns declared once for every dialect (the DDL of each dialect's
 * migrations creates them). How a field is kept in its column: `text`, `integer`, `float`;
 * `bigint` (sizes, milliseconds; PostgreSQL answers it as a string, read with Number: every value
 * stored is a safe integer); `boolean` (SQLite keeps 0 and 1: the dialect says); `json` (text, as
 * written, key order included; a driver that parses it hands the value).
 */
export type ColumnKind = 'text' | 'integer' | 'bigint' | 'float' | 'boolean' | 'json';

/** A table and how each field of its record maps to a column of the same name. */
export interface RecordTable<R> {
  name: string;
  key: keyof R & string;
  columns: { [K in keyof R]-?: ColumnKind };
  /** The columns as a list, for decoding rows without walking an object's keys. */
  fields: [column: string, kind: ColumnKind][];
}

const table = <R>(name: string, key: keyof R & string, columns: { [K in keyof R]-?: ColumnKind }): RecordTable<R> => ({
  name,
  key,
  columns,
  fields: Object.entries(columns) as [string, ColumnKind][],
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
});

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

export const webhookEvents = table<StoredEvent>('webhook_events', 'id', {
  id: 'text',
  type: 'text',
  account_id: 'text',
  subject_id: 'text',
  created_at: 'text',
  data: 'text',
  traceparent: 'text',
  sequence: 'bigint',
});

/** A delivery's record; its lease columns (lease_holder, lease_until_ms) are the adapter's own. */
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
});

/** An upload in progress (core/ports/upload-state.ts); its lease columns (lease_holder, lease_until_ms) are the adapter's own. */
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
});

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
