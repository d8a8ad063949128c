import * as v from 'valibot';
import { parseOptions } from '../../core/options.js';
import { StudioKeyTaken, StudioParentFull, type StudioRecord, type StudioStoragePort } from '../../core/ports/studio.js';
import { decodeStudioRow } from '../sql-records.js';
import type { SqlValue, SqliteDriverName, SqliteStatement } from './drivers/driver.js';
import { ConnectionOptionsSchema, openDatabase } from './open-database.js';


export type SqliteStudioOptions = v.InferInput<typeof ConnectionOptionsSchema>;

export interface SqliteStudio extends StudioStoragePort {
  readonly driver: SqliteDriverName;
  readonly path: string;
  close(): Promise<void>;
}

const columns = 'id, kind, owner_id, project_id, parent_id, position, data, created_at, updated_at, revision, keys';

/** Every statement of the adapter; the schema test checks each is served by an index. */
export const studioQueries = {
  insert: `INSERT INTO studio_records (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  get: `SELECT ${columns} FROM studio_records WHERE id = ?`,
  listChildren: `SELECT ${columns} FROM studio_records WHERE parent_id = ? AND kind = ? ORDER BY position, created_at, id`,
  listProject: `SELECT ${columns} FROM studio_records WHERE project_id = ?`,
  countChildren: `SELECT COUNT(*) AS n FROM studio_records WHERE parent_id = ? AND kind = ?`,
  countOrdered: `SELECT COUNT(*) AS n FROM studio_records WHERE parent_id = ? AND kind = ? AND position IS NOT NULL`,
  openGap: `UPDATE studio_records SET position = position + 1 WHERE parent_id = ? AND kind = ? AND position >= ?`,
  closeGap: `UPDATE studio_records SET position = position - 1 WHERE parent_id = ? AND kind = ? AND position > ?`,
  update: `UPDATE studio_records SET data = ?, keys = ?, updated_at = ?, revision = revision + 1 WHERE id = ? AND revision = ?`,
  keyHolder: `SELECT record_id FROM studio_keys WHERE project_id = ? AND kind = ? AND key = ?`,
  holdKey: `INSERT INTO studio_keys (project_id, kind, key, record_id) VALUES (?, ?, ?, ?)`,
  releaseKeys: `DELETE FROM studio_keys WHERE record_id = ?`,
  releaseTreeKeys: `WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT r.id FROM studio_records r JOIN tree ON r.parent_id = tree.id)
    DELETE FROM studio_keys WHERE record_id IN (SELECT id FROM tree)`,
  lift: `UPDATE studio_records SET position = NULL WHERE id = ?`,
  place: `UPDATE studio_records SET parent_id = ?, position = ?, updated_at = ?, revision = revision + 1 WHERE id = ?`,
  removeTree: `WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT r.id FROM studio_records r JOIN tree ON r.parent_id = tree.id)
    DELETE FROM studio_records WHERE id IN (SELECT id FROM tree)`,
} as const;

type QueryName = keyof typeof studioQueries;

const decode = decodeStudioRow;

/**
 * Creator Studio's storage on SQLite: the `studio_records` table of the same database file the
 * listing storage uses (or another), opened on its own connection and migrated here. Each method
 * is one statement or one BEGIN IMMEDIATE transaction, so positions stay dense under concurrent
 * moves from this process or another.
 */
export async function sqliteStudio(options: SqliteStudioOptions): Promise<SqliteStudio> {
  const config = parseOptions(ConnectionOptionsSchema, options, 'marketkit sqliteStudio');
  const db = await openDatabase({ ...config, foreignKeys: false }, 'marketkit sqliteStudio');
  const prepared = Object.fromEntries(Object.entries(studioQueries).map(([name, sql]) => [name, db.prepare(sql)])) as Record<QueryName, SqliteStatement>;
  const run = (name: QueryName, ...params: SqlValue[]) => prepared[name].run(...params).changes;
  const get = (id: string) => {
    const row = prepared.get.get(id);
    return row ? decode(row) : null;
  };
  /** Puts an ordered record at min(index, count) among its new siblings, shifting the rest. */
  const slot = (parentId: string, kind: string, index: number) => {
    const count = Number(prepared.countOrdered.get(parentId, kind)?.n ?? 0);
    const at = Math.min(Math.max(index, 0), count);
    run('openGap', parentId, kind, at);
    return at;
  };

  return {
    driver: db.name,
    path: config.path,
    async insert(records, limits = {}) {
      db.transaction(() => {
        for (const r of records) {
          const limit = limits[r.kind];
          if (limit !== undefined && Number(prepared.countChildren.get(r.parent_id, r.kind)?.n ?? 0) >= limit) throw new StudioParentFull(r.kind, limit);
          // Checked inside the write lock: nothing can take the key between the check and the insert.
          for (const key of r.keys) {
            if (prepared.keyHolder.get(r.project_id, r.kind, key)) throw new StudioKeyTaken(key);
            run('holdKey', r.project_id, r.kind, key, r.id);
          }
          const position = r.position === null ? null : slot(r.parent_id, r.kind, r.position);
          run('insert', r.id, r.kind, r.owner_id, r.project_id, r.parent_id, position, JSON.stringify(r.data), r.created_at, r.updated_at, r.revision, JSON.stringify(r.keys));
        }
      });
    },
    async get(id) {
      return get(id);
    },
    async listChildren(parentId, kind) {
      return prepared.listChildren.all(parentId, kind).map(decode);
    },
    async countChildren(parentId, kind) {
      return Number(prepared.countChildren.get(parentId, kind)?.n ?? 0);
    },
    async listProject(projectId) {
      return prepared.listProject.all(projectId).map(decode);
    },
    async update(id, expectedRevision, changes) {
      return db.transaction(() => {
        const record = get(id);
        if (!record) return { outcome: 'missing' as const };
        if (record.revision !== expectedRevision) return { outcome: 'stale' as const };
        for (const key of changes.keys) {
          const holder = prepared.keyHolder.get(record.project_id, record.kind, key)?.record_id;
          if (holder !== undefined && holder !== id) return { outcome: 'taken' as const, key };
        }
        run('releaseKeys', id);
        for (const key of changes.keys) run('holdKey', record.project_id, record.kind, key, id);
        run('update', JSON.stringify(changes.data), JSON.stringify(changes.keys), changes.updated_at, id, expectedRevision);
        return { outcome: 'updated' as const, record: get(id)! };
      });
    },
    async move(id, parentId, index, at, limits = {}) {
      return db.transaction(() => {
        const record = get(id);
        if (!record) return null;
        if (record.position === null) throw new Error(`marketkit sqliteStudio: ${record.kind} records are not ordered; they cannot move`);
        const limit = limits[record.kind];
        if (limit !== undefined && parentId !== record.parent_id && Number(prepared.countChildren.get(parentId, record.kind)?.n ?? 0) >= limit) {
          throw new StudioParentFull(record.kind, limit);
        }
        run('lift', id);
        run('closeGap', record.parent_id, record.kind, record.position);
        run('place', parentId, slot(parentId, record.kind, index), at, id);
        return get(id);
      });
    },
    async remove(id) {
      return db.transaction(() => {
        const record = get(id);
        if (!record) return false;
        run('releaseTreeKeys', id);
        run('removeTree', id);
        if (record.position !== null) run('closeGap', record.parent_id, record.kind, record.position);
        return true;
      });
    },
    async ping() {
      prepared.get.get('');
    },
    async close() {
      db.close();
    },
  };
}
