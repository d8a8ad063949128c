import { StudioKeyTaken, StudioParentFull, type StudioLimits, type StudioRecord, type StudioStoragePort } from '../../core/ports/studio.js';
import type { StudioKind } from '../../core/studio/resources.js';
import type { SqlDatabase, SqlDialect, SqlSession } from './session.js';

/** A studio_records row as the record: JSON columns parsed (or taken as the driver parsed them), numbers as numbers. */
function decode(row: Record<string, unknown>): StudioRecord {
  const json = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;
  return {
    id: row.id as string,
    kind: row.kind as StudioKind,
    owner_id: row.owner_id as string,
    project_id: row.project_id as string,
    parent_id: row.parent_id as string,
    position: row.position === null ? null : Number(row.position),
    data: json<Record<string, unknown>>(row.data),
    created_at: row.created_at as string,
    updated_at: row.updated_at as string,
    revision: Number(row.revision),
    keys: json<string[]>(row.keys),
  };
}

const columns = 'id, kind, owner_id, project_id, parent_id, position, data, created_at, updated_at, revision, keys';

/** Every statement of Creator Studio's storage; the schema tests check each is served by an index. */
export const studioStatements = ({ textKey }: SqlDialect) => {
  const tree = `WITH RECURSIVE tree(id) AS (SELECT ${textKey} UNION ALL SELECT r.id FROM studio_records r JOIN tree ON r.parent_id = tree.id)`;
  return {
    insert: `INSERT INTO studio_records (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    get: `SELECT ${columns} FROM studio_records WHERE id = ?`,
    listChildren: `SELECT ${columns} FROM studio_records WHERE parent_id = ? AND kind = ? ORDER BY position, created_at, id`,
    listProject: `SELECT ${columns} FROM studio_records WHERE project_id = ?`,
    countChildren: 'SELECT COUNT(*) AS n FROM studio_records WHERE parent_id = ? AND kind = ?',
    countOrdered: 'SELECT COUNT(*) AS n FROM studio_records WHERE parent_id = ? AND kind = ? AND position IS NOT NULL',
    openGap: 'UPDATE studio_records SET position = position + 1 WHERE parent_id = ? AND kind = ? AND position >= ?',
    closeGap: 'UPDATE studio_records SET position = position - 1 WHERE parent_id = ? AND kind = ? AND position > ?',
    update: 'UPDATE studio_records SET data = ?, keys = ?, updated_at = ?, revision = revision + 1 WHERE id = ? AND revision = ?',
    keyHolder: 'SELECT record_id FROM studio_keys WHERE project_id = ? AND kind = ? AND key = ?',
    holdKey: 'INSERT INTO studio_keys (project_id, kind, key, record_id) VALUES (?, ?, ?, ?)',
    releaseKeys: 'DELETE FROM studio_keys WHERE record_id = ?',
    releaseTreeKeys: `${tree} DELETE FROM studio_keys WHERE record_id IN (SELECT id FROM tree)`,
    lift: 'UPDATE studio_records SET position = NULL WHERE id = ?',
    place: 'UPDATE studio_records SET parent_id = ?, position = ?, updated_at = ?, revision = revision + 1 WHERE id = ?',
    removeTree: `${tree} DELETE FROM studio_records WHERE id IN (SELECT id FROM tree)`,
  };
};

/**
 * Creator Studio's storage (core/ports/studio.ts) in `studio_records` and `studio_keys`, written
 * once. Every write of a project runs in one transaction under its project's lock (the dialect's
 * `nameLock`: an advisory lock on PostgreSQL; SQLite's write lock covers the whole file), so
 * positions stay dense, and limits and keys hold, under concurrent writes; reads take no lock.
 */
export function studioMethods(db: SqlDatabase, who: string): Omit<StudioStoragePort, 'ping'> {
  const st: SqlStudio = { db, s: studioStatements(db.dialect), who };
  const { s } = st;
  const pool = on(st, db);
  return {
    insert: (records, limits = {}) => insertRecords(st, records, limits),
    async get(id) {
      return pool.get(id);
    },
    async listChildren(parentId, kind) {
      return (await db.all(s.listChildren, [parentId, kind])).map(decode);
    },
    async countChildren(parentId, kind) {
      return pool.count(s.countChildren, parentId, kind);
    },
    async listProject(projectId) {
      return (await db.all(s.listProject, [projectId])).map(decode);
    },
    update: (id, expectedRevision, changes) => updateRecord(st, id, expectedRevision, changes),
    move: (id, parentId, index, at, limits = {}) => moveRecord(st, id, parentId, index, at, limits),
    async remove(id) {
      return db.transaction(async (session) => {
        const record = await on(st, session).lockedRecord(id);
        if (!record) return false;
        await session.run(s.releaseTreeKeys, [id]);
        await session.run(s.removeTree, [id]);
        if (record.position !== null) await session.run(s.closeGap, [record.parent_id, record.kind, record.position]);
        return true;
      });
    },
  };
}

/** What the functions below share: the database, its statements, the adapter's name for messages. */
interface SqlStudio {
  db: SqlDatabase;
  s: ReturnType<typeof studioStatements>;
  who: string;
}

/** The reads and locks of one session (the pool, or a transaction). */
function on({ db, s }: SqlStudio, session: SqlSession) {
  const { nameLock } = db.dialect;
  const count = async (sql: string, ...params: unknown[]) => Number((await session.all(sql, params))[0]?.n ?? 0);
  const get = async (id: string) => {
    const [row] = await session.all(s.get, [id]);
    return row ? decode(row) : null;
  };
  const lockProject = async (projectId: string) => {
    if (nameLock) await session.all(nameLock, [projectId]);
  };
  /** Puts an ordered record at min(index, count) among its new siblings, shifting the rest. */
  const slot = async (parentId: string, kind: string, index: number) => {
    const at = Math.min(Math.max(index, 0), await count(s.countOrdered, parentId, kind));
    await session.run(s.openGap, [parentId, kind, at]);
    return at;
  };
  /** The record, read again once its project's lock is held (null when it went meanwhile). */
  const lockedRecord = async (id: string) => {
    const seen = await get(id);
    if (!seen || !nameLock) return seen;
    await lockProject(seen.project_id);
    return get(id);
  };
  return { count, get, lockProject, slot, lockedRecord };
}

async function insertRecords(st: SqlStudio, records: StudioRecord[], limits: StudioLimits): Promise<void> {
  const { db, s } = st;
  await db.transaction(async (session) => {
    const tx = on(st, session);
    // In one order, so that two batches over the same projects cannot wait for each other.
    for (const project of [...new Set(records.map((r) => r.project_id))].sort()) await tx.lockProject(project);
    for (const r of records) {
      const limit = limits[r.kind];
      if (limit !== undefined && (await tx.count(s.countChildren, r.parent_id, r.kind)) >= limit) throw new StudioParentFull(r.kind, limit);
      // Checked under the project's lock: nothing can take the key between the check and the insert.
      for (const key of r.keys) {
        if ((await session.all(s.keyHolder, [r.project_id, r.kind, key])).length > 0) throw new StudioKeyTaken(key);
        await session.run(s.holdKey, [r.project_id, r.kind, key, r.id]);
      }
      const position = r.position === null ? null : await tx.slot(r.parent_id, r.kind, r.position);
      await session.run(s.insert, [r.id, r.kind, r.owner_id, r.project_id, r.parent_id, position, JSON.stringify(r.data), r.created_at, r.updated_at, r.revision, JSON.stringify(r.keys)]);
    }
  });
}

function updateRecord(st: SqlStudio, ...[id, expectedRevision, changes]: Parameters<StudioStoragePort['update']>): ReturnType<StudioStoragePort['update']> {
  const { db, s } = st;
  return db.transaction(async (session) => {
    const tx = on(st, session);
    const record = await tx.lockedRecord(id);
    if (!record) return { outcome: 'missing' as const };
    if (record.revision !== expectedRevision) return { outcome: 'stale' as const };
    for (const key of changes.keys) {
      const holder = (await session.all(s.keyHolder, [record.project_id, record.kind, key]))[0]?.record_id;
      if (holder !== undefined && holder !== id) return { outcome: 'taken' as const, key };
    }
    await session.run(s.releaseKeys, [id]);
    for (const key of changes.keys) await session.run(s.holdKey, [record.project_id, record.kind, key, id]);
    await session.run(s.update, [JSON.stringify(changes.data), JSON.stringify(changes.keys), changes.updated_at, id, expectedRevision]);
    return { outcome: 'updated' as const, record: (await tx.get(id))! };
  });
}

function moveRecord(st: SqlStudio, id: string, parentId: string, index: number, at: string, limits: StudioLimits): Promise<StudioRecord | null> {
  const { db, s, who } = st;
  return db.transaction(async (session) => {
    const tx = on(st, session);
    const record = await tx.lockedRecord(id);
    if (!record) return null;
    if (record.position === null) throw new Error(`${who}: ${record.kind} records are not ordered; they cannot move`);
    const limit = limits[record.kind];
    if (limit !== undefined && parentId !== record.parent_id && (await tx.count(s.countChildren, parentId, record.kind)) >= limit) {
      throw new StudioParentFull(record.kind, limit);
    }
    await session.run(s.lift, [id]);
    await session.run(s.closeGap, [record.parent_id, record.kind, record.position]);
    await session.run(s.place, [parentId, await tx.slot(parentId, record.kind, index), at, id]);
    return tx.get(id);
  });
}
