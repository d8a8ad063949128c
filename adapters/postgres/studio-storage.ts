import { StudioKeyTaken, StudioParentFull, type StudioStoragePort } from '../../core/ports/studio.js';
import { decodeStudioRow } from '../sql-records.js';
import type { PgSession, PgStatement } from './driver.js';
import { openPostgres, type PostgresOptions } from './options.js';

export type PostgresStudioOptions = PostgresOptions;

export interface PostgresStudio extends StudioStoragePort {
  /** `host:port/database`, for messages (never the password). */
  readonly where: string;
  /** Ends the pool's connections once the calls in flight are done. */
  close(): Promise<void>;
}

const columns = 'id, kind, owner_id, project_id, parent_id, position, data, created_at, updated_at, revision, keys';
/** `studio_records.id`'s collation, for the seed of the recursive walks (a parameter has the default one). */
const tree = `WITH RECURSIVE tree(id) AS (SELECT $1::text COLLATE "C" UNION ALL SELECT r.id FROM studio_records r JOIN tree ON r.parent_id = tree.id)`;

/** Every statement of the adapter; the schema test checks each is served by an index. */
export const studioSql = {
  // Every write of a project runs under this lock, taken first: one writer per project at a time,
  // as SQLite's write lock makes it for the whole file. Projects do not wait for one another.
  lockProject: 'SELECT pg_advisory_xact_lock(1296781140, hashtext($1))',
  insert: `INSERT INTO studio_records (${columns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
  get: `SELECT ${columns} FROM studio_records WHERE id = $1`,
  listChildren: `SELECT ${columns} FROM studio_records WHERE parent_id = $1 AND kind = $2 ORDER BY position, created_at, id`,
  listProject: `SELECT ${columns} FROM studio_records WHERE project_id = $1`,
  countChildren: 'SELECT COUNT(*) AS n FROM studio_records WHERE parent_id = $1 AND kind = $2',
  countOrdered: 'SELECT COUNT(*) AS n FROM studio_records WHERE parent_id = $1 AND kind = $2 AND position IS NOT NULL',
  openGap: 'UPDATE studio_records SET position = position + 1 WHERE parent_id = $1 AND kind = $2 AND position >= $3',
  closeGap: 'UPDATE studio_records SET position = position - 1 WHERE parent_id = $1 AND kind = $2 AND position > $3',
  update: 'UPDATE studio_records SET data = $1, keys = $2, updated_at = $3, revision = revision + 1 WHERE id = $4 AND revision = $5',
  keyHolder: 'SELECT record_id FROM studio_keys WHERE project_id = $1 AND kind = $2 AND key = $3',
  holdKey: 'INSERT INTO studio_keys (project_id, kind, key, record_id) VALUES ($1, $2, $3, $4)',
  releaseKeys: 'DELETE FROM studio_keys WHERE record_id = $1',
  releaseTreeKeys: `${tree} DELETE FROM studio_keys WHERE record_id IN (SELECT id FROM tree)`,
  lift: 'UPDATE studio_records SET position = NULL WHERE id = $1',
  place: 'UPDATE studio_records SET parent_id = $1, position = $2, updated_at = $3, revision = revision + 1 WHERE id = $4',
  removeTree: `${tree} DELETE FROM studio_records WHERE id IN (SELECT id FROM tree)`,
  ping: 'SELECT 1 AS ok',
} as const;

type QueryName = keyof typeof studioSql;
const statements = Object.fromEntries(Object.entries(studioSql).map(([name, text]) => [name, { name: `marketkit_studio_${name}`, text }])) as Record<QueryName, PgStatement>;

const decode = decodeStudioRow;

const who = 'marketkit postgresStudio';

/**
 * Creator Studio's storage on PostgreSQL: the `studio_records` table of the same database the
 * listing storage uses (or another), on a pool of its own, migrated here (one migration history
 * with the listing storage). Each write is one transaction under its project's advisory lock, so
 * positions stay dense, limits and keys hold under concurrent writes from any instance; reads take
 * no lock.
 */
export async function postgresStudio(options: PostgresStudioOptions): Promise<PostgresStudio> {
  const db = await openPostgres(options, who);
  const on = (session: PgSession) => {
    const rows = async (name: QueryName, ...params: unknown[]) => (await session.query(statements[name], params)).rows;
    const run = async (name: QueryName, ...params: unknown[]) => (await session.query(statements[name], params)).rowCount;
    const count = async (name: QueryName, ...params: unknown[]) => Number((await rows(name, ...params))[0]?.n ?? 0);
    const get = async (id: string) => {
      const [row] = await rows('get', id);
      return row ? decode(row) : null;
    };
    /** Puts an ordered record at min(index, count) among its new siblings, shifting the rest. */
    const slot = async (parentId: string, kind: string, index: number) => {
      const at = Math.min(Math.max(index, 0), await count('countOrdered', parentId, kind));
      await run('openGap', parentId, kind, at);
      return at;
    };
    /** The record, read again once its project's lock is held (null when it went meanwhile). */
    const lockedRecord = async (id: string) => {
      const seen = await get(id);
      if (!seen) return null;
      await rows('lockProject', seen.project_id);
      return get(id);
    };
    return { rows, run, count, get, slot, lockedRecord };
  };
  const pool = on(db);

  return {
    where: db.where,
    async insert(records, limits = {}) {
      await db.transaction(async (session) => {
        const tx = on(session);
        // In one order, so that two batches over the same projects cannot wait for each other.
        for (const project of [...new Set(records.map((r) => r.project_id))].sort()) await tx.rows('lockProject', project);
        for (const r of records) {
          const limit = limits[r.kind];
          if (limit !== undefined && (await tx.count('countChildren', r.parent_id, r.kind)) >= limit) throw new StudioParentFull(r.kind, limit);
          // Checked under the project's lock: nothing can take the key between the check and the insert.
          for (const key of r.keys) {
            if ((await tx.rows('keyHolder', r.project_id, r.kind, key)).length > 0) throw new StudioKeyTaken(key);
            await tx.run('holdKey', r.project_id, r.kind, key, r.id);
          }
          const position = r.position === null ? null : await tx.slot(r.parent_id, r.kind, r.position);
          await tx.run('insert', r.id, r.kind, r.owner_id, r.project_id, r.parent_id, position, JSON.stringify(r.data), r.created_at, r.updated_at, r.revision, JSON.stringify(r.keys));
        }
      });
    },
    async get(id) {
      return pool.get(id);
    },
    async listChildren(parentId, kind) {
      return (await pool.rows('listChildren', parentId, kind)).map(decode);
    },
    async countChildren(parentId, kind) {
      return pool.count('countChildren', parentId, kind);
    },
    async listProject(projectId) {
      return (await pool.rows('listProject', projectId)).map(decode);
    },
    async update(id, expectedRevision, changes) {
      return db.transaction(async (session) => {
        const tx = on(session);
        const record = await tx.lockedRecord(id);
        if (!record) return { outcome: 'missing' as const };
        if (record.revision !== expectedRevision) return { outcome: 'stale' as const };
        for (const key of changes.keys) {
          const holder = (await tx.rows('keyHolder', record.project_id, record.kind, key))[0]?.record_id;
          if (holder !== undefined && holder !== id) return { outcome: 'taken' as const, key };
        }
        await tx.run('releaseKeys', id);
        for (const key of changes.keys) await tx.run('holdKey', record.project_id, record.kind, key, id);
        await tx.run('update', JSON.stringify(changes.data), JSON.stringify(changes.keys), changes.updated_at, id, expectedRevision);
        return { outcome: 'updated' as const, record: (await tx.get(id))! };
      });
    },
    async move(id, parentId, index, at, limits = {}) {
      return db.transaction(async (session) => {
        const tx = on(session);
        const record = await tx.lockedRecord(id);
        if (!record) return null;
        if (record.position === null) throw new Error(`${who}: ${record.kind} records are not ordered; they cannot move`);
        const limit = limits[record.kind];
        if (limit !== undefined && parentId !== record.parent_id && (await tx.count('countChildren', parentId, record.kind)) >= limit) {
          throw new StudioParentFull(record.kind, limit);
        }
        await tx.run('lift', id);
        await tx.run('closeGap', record.parent_id, record.kind, record.position);
        await tx.run('place', parentId, await tx.slot(parentId, record.kind, index), at, id);
        return tx.get(id);
      });
    },
    async remove(id) {
      return db.transaction(async (session) => {
        const tx = on(session);
        const record = await tx.lockedRecord(id);
        if (!record) return false;
        await tx.run('releaseTreeKeys', id);
        await tx.run('removeTree', id);
        if (record.position !== null) await tx.run('closeGap', record.parent_id, record.kind, record.position);
        return true;
      });
    },
    async ping() {
      await pool.rows('ping');
    },
    async close() {
      await db.close();
    },
  };
}
