/**
 * The implementation a user would write instead of MarketKit on PostgreSQL: an idiomatic Fastify 5
 * + node-postgres server for the listing endpoints the REST benches load, with the same answers
 * (field for field) as bench/fastify-sqlite.ts and MarketKit, on the same cluster with the same
 * durability (PostgreSQL's defaults: fsync and synchronous_commit on). It is the floor MarketKit on
 * PostgreSQL is held to (docs/performance.md, "REST on PostgreSQL against Fastify + node-postgres").
 *
 * As a competent engineer writes it: a pool of 10 connections (MarketKit's default), named
 * (prepared once per connection) parameterized statements, an index on the owner for the page, the
 * listing and its images in one round trip (a json_agg subquery), the page and its total as two
 * statements on two pooled connections at once, a unique slug by constraint (409), a bearer token
 * looked up by its SHA-256 (revoked and expired tokens refused) and its scope checked, the create
 * checked by a JSON Schema, answers through response schemas. What it leaves out, as the SQLite
 * peer does: rate limits, request ids, a read cache (and so any freshness question), the token's
 * last use, the outbox event of a write, the state machine and plan checks.
 *
 * bench/rest-postgres.bench.ts serves it in a child of its own (`--serve fastify-pg --url ...`).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import Fastify, { type FastifyRequest } from 'fastify';
import pg from 'pg';
import { assetDetail, assetProperties, assetView, createBody, pageQuery, pageResponse, refuse, slugOf, type AssetRow, type Caller } from './fastify-common.js';

const schema = [
  'CREATE TABLE accounts (id uuid PRIMARY KEY, username text NOT NULL UNIQUE)',
  `CREATE TABLE tokens (hash text PRIMARY KEY, account_id uuid NOT NULL REFERENCES accounts(id), scopes text[] NOT NULL,
    expires_at timestamptz, revoked_at timestamptz)`,
  `CREATE TABLE assets (
    id uuid PRIMARY KEY, owner_id uuid NOT NULL REFERENCES accounts(id), title text NOT NULL,
    slug text NOT NULL UNIQUE, description text, status text NOT NULL, visibility text NOT NULL,
    pricing_type text NOT NULL, price double precision, is_free boolean NOT NULL, version text NOT NULL,
    category_id uuid, tags text[] NOT NULL, scheduled_publish_at text, download_count integer NOT NULL,
    view_count integer NOT NULL, created_at text NOT NULL, updated_at text NOT NULL)`,
  'CREATE INDEX assets_by_owner ON assets (owner_id, created_at DESC)',
  `CREATE TABLE images (
    id uuid PRIMARY KEY, asset_id uuid NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
    public_url text NOT NULL, storage_path text NOT NULL, is_primary boolean NOT NULL,
    position integer NOT NULL, created_at text NOT NULL)`,
  'CREATE INDEX images_by_asset ON images (asset_id, position)',
];

const columns = 'id, owner_id, title, slug, description, status, visibility, pricing_type, price, is_free, version, category_id, tags, scheduled_publish_at, download_count, view_count, created_at, updated_at';
const values = (row: AssetRow) => [row.id, row.owner_id, row.title, row.slug, row.description, row.status, row.visibility, row.pricing_type, row.price, row.is_free, row.version, row.category_id, row.tags, row.scheduled_publish_at, row.download_count, row.view_count, row.created_at, row.updated_at];

const statements = {
  token: 'SELECT account_id, scopes, expires_at, revoked_at FROM tokens WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())',
  asset: `SELECT a.*, COALESCE((SELECT json_agg(json_build_object('id', i.id, 'image_id', i.id, 'public_url', i.public_url, 'storage_path', i.storage_path,
      'is_primary', i.is_primary, 'position', i.position, 'created_at', i.created_at) ORDER BY i.position) FROM images i WHERE i.asset_id = a.id), '[]') AS images
    FROM assets a WHERE a.id = $1 AND a.owner_id = $2`,
  page: 'SELECT * FROM assets WHERE owner_id = $1 ORDER BY created_at DESC LIMIT $2 OFFSET $3',
  count: 'SELECT count(*)::int AS total FROM assets WHERE owner_id = $1',
  insert: `INSERT INTO assets (${columns}) VALUES (${columns.split(', ').map((_, i) => `$${i + 1}`).join(', ')})`,
};
const named = (name: keyof typeof statements, params: unknown[]) => ({ name: `peer_${name}`, text: statements[name], values: params });

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function serveFastifyPostgres(url: string, listings: number) {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const hashOf = (value: string) => createHash('sha256').update(value).digest('hex');
  const accountId = randomUUID();
  const token = `tok_${randomBytes(32).toString('base64url')}`;
  const assetIds: string[] = [];
  // The schema and the seller with its listings, in one transaction (seeding only: no flush waited for).
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL synchronous_commit = off');
    for (const statement of schema) await client.query(statement);
    await client.query('INSERT INTO accounts VALUES ($1, $2)', [accountId, 'bench']);
    await client.query('INSERT INTO tokens VALUES ($1, $2, $3, NULL, NULL)', [hashOf(token), accountId, ['assets:read', 'assets:write']]);
    for (let n = 1; n <= listings; n++) {
      const at = new Date(Date.UTC(2026, 0, 15, 12) + n * 60_000).toISOString();
      const id = randomUUID();
      await client.query(statements.insert, values({
        id, owner_id: accountId, title: `Castle Pack ${n}`, slug: `castle-pack-${n}`,
        description: 'A pack of stone walls, towers and gates for castle builds.', status: 'draft', visibility: 'public',
        pricing_type: 'fixed', price: 9.99, is_free: false, version: '1.0.0', category_id: null, tags: ['castle', 'Medieval'],
        scheduled_publish_at: null, download_count: 0, view_count: 0, created_at: at, updated_at: at,
      }));
      assetIds.push(id);
    }
    await client.query('COMMIT');
    await client.query('ANALYZE');
  } finally {
    client.release();
  }

  const app = Fastify({ logger: false, bodyLimit: 1_048_576 });
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    const header = request.headers.authorization;
    if (!header?.startsWith('Bearer ')) return refuse(reply, 401, 'UNAUTHORIZED', 'A valid token is required');
    const { rows } = await pool.query(named('token', [hashOf(header.slice(7))]));
    if (!rows[0]) return refuse(reply, 401, 'UNAUTHORIZED', 'A valid token is required');
    (request as FastifyRequest & { caller: Caller }).caller = { account_id: rows[0].account_id, scopes: rows[0].scopes };
  });
  const callerWith = (request: FastifyRequest, scope: string): Caller | null => {
    const caller = (request as FastifyRequest & { caller: Caller }).caller;
    return caller.scopes.includes(scope) ? caller : null;
  };

  app.get<{ Params: { id: string } }>(
    '/api/v1/assets/:id',
    { schema: { params: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } }, response: { 200: assetDetail } } },
    async (request, reply) => {
      const caller = callerWith(request, 'assets:read');
      if (!caller) return refuse(reply, 403, 'FORBIDDEN', 'This token lacks assets:read');
      if (!uuidPattern.test(request.params.id)) return refuse(reply, 404, 'NOT_FOUND', 'Not found');
      const { rows } = await pool.query(named('asset', [request.params.id, caller.account_id]));
      if (!rows[0]) return refuse(reply, 404, 'NOT_FOUND', 'Not found');
      return { ...assetView(rows[0] as AssetRow), images: rows[0].images, category: null, file: null, review: null };
    },
  );

  app.get<{ Querystring: { limit: number; offset: number } }>(
    '/api/v1/assets',
    { schema: { querystring: pageQuery, response: { 200: pageResponse } } },
    async (request, reply) => {
      const caller = callerWith(request, 'assets:read');
      if (!caller) return refuse(reply, 403, 'FORBIDDEN', 'This token lacks assets:read');
      const { limit, offset } = request.query;
      const [page, count] = await Promise.all([pool.query(named('page', [caller.account_id, limit, offset])), pool.query(named('count', [caller.account_id]))]);
      const total = count.rows[0].total as number;
      return { data: page.rows.map((row) => assetView(row as AssetRow)), pagination: { limit, offset, total, has_more: offset + page.rows.length < total } };
    },
  );

  app.post<{ Body: { title: string; slug?: string; description?: string; tags?: string[]; price?: number } }>(
    '/api/v1/assets',
    { schema: { body: createBody, response: { 201: { type: 'object', properties: assetProperties } } } },
    async (request, reply) => {
      const caller = callerWith(request, 'assets:write');
      if (!caller) return refuse(reply, 403, 'FORBIDDEN', 'This token lacks assets:write');
      const body = request.body;
      const now = new Date().toISOString();
      const row: AssetRow = {
        id: randomUUID(), owner_id: caller.account_id, title: body.title, slug: body.slug ?? slugOf(body.title),
        description: body.description ?? null, status: 'draft', visibility: 'public', pricing_type: 'fixed',
        price: body.price ?? null, is_free: !body.price, version: '1.0.0', category_id: null, tags: body.tags ?? [],
        scheduled_publish_at: null, download_count: 0, view_count: 0, created_at: now, updated_at: now,
      };
      try {
        await pool.query(named('insert', values(row)));
      } catch (error) {
        if ((error as { code?: string }).code === '23505') return refuse(reply, 409, 'CONFLICT', 'slug is taken');
        throw error;
      }
      return reply.code(201).send(assetView(row));
    },
  );

  // Warm, as the MarketKit servers of the bench are before they serve.
  const headers = { authorization: `Bearer ${token}` };
  for (let i = 0; i < 3000; i++) await app.inject({ method: 'GET', url: `/api/v1/assets/${assetIds[i % assetIds.length]}`, headers });
  for (let i = 0; i < 300; i++) await app.inject({ method: 'GET', url: '/api/v1/assets?limit=50', headers });
  for (let i = 0; i < 300; i++) await app.inject({ method: 'POST', url: '/api/v1/assets', headers, payload: { title: 'Bench Pack', slug: `warm-up-${i}`, tags: ['bench'] } });

  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: address, token, assetId: assetIds.at(-1)!, assetIds, server: app.server };
}
