/**
 * The implementation a user would write instead of MarketKit: an idiomatic Fastify 5 +
 * better-sqlite3 server for the three listing endpoints the REST benches load, with the same
 * answers (field for field) and the same durability as `marketkit serve` on SQLite (WAL,
 * synchronous=FULL). It is the floor MarketKit's REST throughput is held to (docs/performance.md,
 * "REST against the server a user would write instead").
 *
 * What it does, as such a server would: a bearer token looked up by its SHA-256 in the database
 * (revoked and expired tokens refused) and its scope checked; the listing read by id and owner with
 * its images; a page of listings newest first with the total; a create checked by a JSON Schema
 * (Fastify's validator), a unique slug by constraint (409); answers serialized through response
 * schemas (fast-json-stringify), prepared statements throughout. What it leaves out, each of which
 * MarketKit does on every request and which would only slow this server: rate limits, request ids,
 * a read cache, the token's last use, the listing's state machine and plan checks.
 *
 * bench/rest.bench.ts serves it in a child of its own (`--serve fastify`).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { assetDetail, assetProperties, assetView, createBody, pageQuery, pageResponse, refuse, slugOf, type AssetRow, type Caller } from './fastify-common.js';

const schema = `
  CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, username TEXT NOT NULL UNIQUE);
  CREATE TABLE IF NOT EXISTS tokens (
    hash TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id), scopes TEXT NOT NULL,
    expires_at TEXT, revoked_at TEXT);
  CREATE TABLE IF NOT EXISTS assets (
    id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES accounts(id), title TEXT NOT NULL,
    slug TEXT NOT NULL UNIQUE, description TEXT, status TEXT NOT NULL, visibility TEXT NOT NULL,
    pricing_type TEXT NOT NULL, price REAL, is_free INTEGER NOT NULL, version TEXT NOT NULL,
    category_id TEXT, tags TEXT NOT NULL, scheduled_publish_at TEXT, download_count INTEGER NOT NULL,
    view_count INTEGER NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS assets_by_owner ON assets (owner_id, created_at DESC);
  CREATE TABLE IF NOT EXISTS images (
    id TEXT PRIMARY KEY, asset_id TEXT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
    public_url TEXT NOT NULL, storage_path TEXT NOT NULL, is_primary INTEGER NOT NULL,
    position INTEGER NOT NULL, created_at TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS images_by_asset ON images (asset_id, position);`;

export async function serveFastify(dir: string, listings: number) {
  const db = new Database(join(dir, 'fastify.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.exec(schema);

  // The seller, its token and its listings, as the MarketKit benches seed theirs.
  const accountId = randomUUID();
  const token = `tok_${randomBytes(32).toString('base64url')}`;
  const hashOf = (value: string) => createHash('sha256').update(value).digest('hex');
  const insertAsset = db.prepare(`INSERT INTO assets VALUES (@id, @owner_id, @title, @slug, @description, @status, @visibility,
    @pricing_type, @price, @is_free, @version, @category_id, @tags, @scheduled_publish_at, @download_count, @view_count, @created_at, @updated_at)`);
  const assetIds: string[] = [];
  db.transaction(() => {
    db.prepare('INSERT INTO accounts VALUES (?, ?)').run(accountId, 'bench');
    db.prepare('INSERT INTO tokens VALUES (?, ?, ?, NULL, NULL)').run(hashOf(token), accountId, JSON.stringify(['assets:read', 'assets:write']));
    for (let n = 1; n <= listings; n++) {
      const at = new Date(Date.UTC(2026, 0, 15, 12) + n * 60_000).toISOString();
      const id = randomUUID();
      insertAsset.run({
        id, owner_id: accountId, title: `Castle Pack ${n}`, slug: `castle-pack-${n}`,
        description: 'A pack of stone walls, towers and gates for castle builds.', status: 'draft', visibility: 'public',
        pricing_type: 'fixed', price: 9.99, is_free: 0, version: '1.0.0', category_id: null, tags: JSON.stringify(['castle', 'Medieval']),
        scheduled_publish_at: null, download_count: 0, view_count: 0, created_at: at, updated_at: at,
      });
      assetIds.push(id);
    }
  })();

  const tokenByHash = db.prepare<[string], { account_id: string; scopes: string; expires_at: string | null; revoked_at: string | null }>(
    'SELECT account_id, scopes, expires_at, revoked_at FROM tokens WHERE hash = ?',
  );
  const assetById = db.prepare<[string, string], AssetRow>('SELECT * FROM assets WHERE id = ? AND owner_id = ?');
  const imagesOf = db.prepare<[string], Record<string, unknown>>(
    'SELECT id, id AS image_id, public_url, storage_path, is_primary = 1 AS is_primary, position, created_at FROM images WHERE asset_id = ? ORDER BY position',
  );
  const page = db.prepare<[string, number, number], AssetRow>('SELECT * FROM assets WHERE owner_id = ? ORDER BY created_at DESC LIMIT ? OFFSET ?');
  const countOf = db.prepare<[string], { total: number }>('SELECT count(*) AS total FROM assets WHERE owner_id = ?');

  const app = Fastify({ logger: false, bodyLimit: 1_048_576 });
  app.decorateRequest('caller', null);
  app.addHook('onRequest', async (request: FastifyRequest, reply) => {
    const header = request.headers.authorization;
    if (!header?.startsWith('Bearer ')) return refuse(reply, 401, 'UNAUTHORIZED', 'A valid token is required');
    const row = tokenByHash.get(hashOf(header.slice(7)));
    if (!row || row.revoked_at || (row.expires_at && row.expires_at <= new Date().toISOString())) {
      return refuse(reply, 401, 'UNAUTHORIZED', 'A valid token is required');
    }
    (request as FastifyRequest & { caller: Caller }).caller = { account_id: row.account_id, scopes: JSON.parse(row.scopes) as string[] };
  });
  const callerWith = (request: FastifyRequest, reply: FastifyReply, scope: string): Caller | null => {
    const caller = (request as FastifyRequest & { caller: Caller }).caller;
    if (caller.scopes.includes(scope)) return caller;
    void refuse(reply, 403, 'FORBIDDEN', `This token lacks ${scope}`);
    return null;
  };

  app.get<{ Params: { id: string } }>(
    '/api/v1/assets/:id',
    { schema: { params: { type: 'object', properties: { id: { type: 'string', maxLength: 64 } } }, response: { 200: assetDetail } } },
    async (request, reply) => {
      const caller = callerWith(request, reply, 'assets:read');
      if (!caller) return reply;
      const row = assetById.get(request.params.id, caller.account_id);
      if (!row) return refuse(reply, 404, 'NOT_FOUND', 'Not found');
      return { ...assetView(row), images: imagesOf.all(row.id), category: null, file: null, review: null };
    },
  );

  app.get<{ Querystring: { limit: number; offset: number } }>(
    '/api/v1/assets',
    {
      schema: {
        querystring: pageQuery,
        response: { 200: pageResponse },
      },
    },
    async (request, reply) => {
      const caller = callerWith(request, reply, 'assets:read');
      if (!caller) return reply;
      const { limit, offset } = request.query;
      const rows = page.all(caller.account_id, limit, offset);
      const { total } = countOf.get(caller.account_id)!;
      return { data: rows.map(assetView), pagination: { limit, offset, total, has_more: offset + rows.length < total } };
    },
  );

  app.post<{ Body: { title: string; slug?: string; description?: string; tags?: string[]; price?: number } }>(
    '/api/v1/assets',
    { schema: { body: createBody, response: { 201: { type: 'object', properties: assetProperties } } } },
    async (request, reply) => {
      const caller = callerWith(request, reply, 'assets:write');
      if (!caller) return reply;
      const body = request.body;
      const now = new Date().toISOString();
      const row: AssetRow = {
        id: randomUUID(), owner_id: caller.account_id, title: body.title,
        slug: body.slug ?? slugOf(body.title),
        description: body.description ?? null, status: 'draft', visibility: 'public', pricing_type: 'fixed',
        price: body.price ?? null, is_free: body.price ? 0 : 1, version: '1.0.0', category_id: null, tags: JSON.stringify(body.tags ?? []),
        scheduled_publish_at: null, download_count: 0, view_count: 0, created_at: now, updated_at: now,
      };
      try {
        insertAsset.run(row);
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') return refuse(reply, 409, 'CONFLICT', 'slug is taken');
        throw error;
      }
      return reply.code(201).send(assetView(row));
    },
  );

  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, token, assetId: assetIds.at(-1)!, assetIds };
}
