import { columnsOf, encodeWith, recordTables, type SqlRecordTable } from '../sql-records.js';
import type { AccountRecord, AssetRecord, CategoryRecord, ImageRecord, IssuedUploadRecord, TokenRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from '../../core/ports/storage.js';
import type { SqlRow, SqlValue } from './drivers/driver.js';

/** How a field is kept in its column. */
type ColumnKind = 'value' | 'boolean' | 'json';

/** A table and how each field of its record maps to a column of the same name. */
export type RecordTable<R> = SqlRecordTable<R, ColumnKind>;

const table = recordTables<ColumnKind>();

export const accounts = table<AccountRecord>('accounts', 'id', {
  id: 'value',
  username: 'value',
  display_name: 'value',
  bio: 'value',
  website: 'value',
  avatar_url: 'value',
  country: 'value',
  seller_status: 'value',
  is_restricted: 'boolean',
  is_suspended: 'boolean',
  payouts_connected: 'boolean',
  subscription_tier: 'value',
  plan_features: 'json',
  socials: 'json',
  hire: 'json',
  created_at: 'value',
  updated_at: 'value',
});

export const tokens = table<TokenRecord>('tokens', 'id', {
  id: 'value',
  account_id: 'value',
  name: 'value',
  prefix: 'value',
  hash: 'value',
  scopes: 'json',
  created_at: 'value',
  last_used_at: 'value',
  expires_at: 'value',
  revoked_at: 'value',
});

export const categories = table<CategoryRecord>('categories', 'id', { id: 'value', slug: 'value', name: 'value' });

export const assets = table<AssetRecord>('assets', 'id', {
  id: 'value',
  owner_id: 'value',
  title: 'value',
  slug: 'value',
  description: 'value',
  status: 'value',
  visibility: 'value',
  pricing_type: 'value',
  price: 'value',
  is_free: 'boolean',
  version: 'value',
  category_id: 'value',
  tags: 'json',
  scheduled_publish_at: 'value',
  download_count: 'value',
  view_count: 'value',
  file: 'json',
  review: 'json',
  created_at: 'value',
  updated_at: 'value',
  revision: 'value',
});

export const images = table<ImageRecord>('images', 'id', {
  id: 'value',
  asset_id: 'value',
  storage_path: 'value',
  public_url: 'value',
  content_type: 'value',
  file_size: 'value',
  is_primary: 'boolean',
  position: 'value',
  created_at: 'value',
});

export const uploads = table<IssuedUploadRecord>('uploads', 'storage_path', {
  storage_path: 'value',
  asset_id: 'value',
  kind: 'value',
  public_url: 'value',
  expires_at: 'value',
  created_at: 'value',
  state: 'value',
  size: 'value',
});

export const webhookEndpoints = table<WebhookEndpointRecord>('webhook_endpoints', 'id', {
  id: 'value',
  account_id: 'value',
  url: 'value',
  description: 'value',
  event_types: 'json',
  enabled: 'boolean',
  disabled_reason: 'value',
  disabled_at: 'value',
  secret: 'value',
  previous_secret: 'value',
  previous_secret_expires_at: 'value',
  failing_since: 'value',
  created_at: 'value',
  updated_at: 'value',
});

/** A delivery's record; its lease columns (lease_holder, lease_until_ms) are the adapter's own. */
export const webhookDeliveries = table<WebhookDeliveryRecord>('webhook_deliveries', 'id', {
  id: 'value',
  account_id: 'value',
  endpoint_id: 'value',
  event_id: 'value',
  event_type: 'value',
  event_sequence: 'value',
  status: 'value',
  attempts: 'json',
  next_attempt_ms: 'value',
  redelivery_of: 'value',
  created_at: 'value',
  updated_at: 'value',
});

export { columnsOf };

function encodeValue(kind: ColumnKind, value: unknown): SqlValue {
  if (value === null || value === undefined) return null;
  if (kind === 'boolean') return value ? 1 : 0;
  if (kind === 'json') return JSON.stringify(value);
  return value as SqlValue;
}

/** The record's fields as parameters, in column order (`only` picks and orders a subset). */
export const encode = encodeWith(encodeValue);

/** A row as the record type: booleans as booleans, JSON parsed, NULL as null. */
export function decode<R>(t: RecordTable<R>, row: SqlRow): R {
  const record: Record<string, unknown> = {};
  for (const [column, kind] of t.fields) {
    const value = row[column] ?? null;
    record[column] = value === null ? null : kind === 'boolean' ? value === 1 : kind === 'json' ? JSON.parse(value as string) : value;
  }
  return record as R;
}
