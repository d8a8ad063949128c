/**
 * What the two Fastify peers share (bench/fastify-sqlite.ts, bench/fastify-postgres.ts): the
 * listing's row, the JSON Schemas Fastify validates the create with and serializes answers through,
 * the view of a row and the error answer. Both answer field for field as MarketKit does.
 */
import type { FastifyReply } from 'fastify';

export interface AssetRow {
  id: string;
  owner_id: string;
  title: string;
  slug: string;
  description: string | null;
  status: string;
  visibility: string;
  pricing_type: string;
  price: number | null;
  /** 0 and 1 on SQLite, a boolean on PostgreSQL. */
  is_free: number | boolean;
  version: string;
  category_id: string | null;
  /** JSON text on SQLite, an array on PostgreSQL. */
  tags: string | string[];
  scheduled_publish_at: string | null;
  download_count: number;
  view_count: number;
  created_at: string;
  updated_at: string;
}

export interface Caller {
  account_id: string;
  scopes: string[];
}

const nullable = (type: string) => ({ type: [type, 'null'] });
export const assetProperties = {
  id: { type: 'string' },
  title: { type: 'string' },
  slug: { type: 'string' },
  description: nullable('string'),
  status: { type: 'string' },
  visibility: { type: 'string' },
  pricing_type: { type: 'string' },
  price: nullable('number'),
  is_free: { type: 'boolean' },
  version: { type: 'string' },
  category_id: nullable('string'),
  tags: { type: 'array', items: { type: 'string' } },
  scheduled_publish_at: nullable('string'),
  download_count: { type: 'integer' },
  view_count: { type: 'integer' },
  created_at: { type: 'string' },
  updated_at: { type: 'string' },
};
export const imageProperties = {
  id: { type: 'string' },
  image_id: { type: 'string' },
  public_url: { type: 'string' },
  storage_path: { type: 'string' },
  is_primary: { type: 'boolean' },
  position: { type: 'integer' },
  created_at: { type: 'string' },
};
export const assetDetail = {
  type: 'object',
  properties: {
    ...assetProperties,
    images: { type: 'array', items: { type: 'object', properties: imageProperties } },
    category: { type: 'null' },
    file: { type: 'null' },
    review: { type: 'null' },
  },
};
export const createBody = {
  type: 'object',
  required: ['title'],
  additionalProperties: false,
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 100 },
    slug: { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$', maxLength: 100 },
    description: { type: 'string', maxLength: 5000 },
    tags: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 30 } },
    price: { type: 'number', minimum: 0 },
  },
};

export function assetView(row: AssetRow) {
  return { ...row, is_free: row.is_free === 1 || row.is_free === true, tags: typeof row.tags === 'string' ? (JSON.parse(row.tags) as string[]) : row.tags };
}

export function refuse(reply: FastifyReply, status: number, code: string, error: string) {
  return reply.code(status).send({ error, code });
}

/** The page answer's schema. */
export const pageResponse = {
  type: 'object',
  properties: {
    data: { type: 'array', items: { type: 'object', properties: assetProperties } },
    pagination: { type: 'object', properties: { limit: { type: 'integer' }, offset: { type: 'integer' }, total: { type: 'integer' }, has_more: { type: 'boolean' } } },
  },
};

/** The page query's schema: limit 1 to 100 (20 by default), offset from 0. */
export const pageQuery = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 }, offset: { type: 'integer', minimum: 0, default: 0 } },
};

/** The slug a create without one gets: its title, lowercased and hyphenated. */
export const slugOf = (title: string) => title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
