import type { StudioKind } from '../../core/studio/resources.js';
import { StudioKeyTaken, StudioParentFull, type StudioLimits, type StudioRecord, type StudioStoragePort } from '../../core/ports/studio.js';

const copy = <T>(value: T): T => structuredClone(value);
const siblingsKey = (parentId: string, kind: StudioKind) => `${parentId}\u0000${kind}`;
const uniqueKey = (record: Pick<StudioRecord, 'project_id' | 'kind'>, key: string) => `${record.project_id}\u0000${record.kind}\u0000${key}`;

/** The store's maps, which the functions below read and change. */
interface StudioState {
  records: Map<string, StudioRecord>;
  /** parent + kind -> child ids; for ordered kinds, in position order. */
  siblings: Map<string, string[]>;
  /** parent -> the kinds it has children of, so that a remove finds everything under a record. */
  kindsUnder: Map<string, Set<StudioKind>>;
  /** project + kind + key -> the id of the record holding it. */
  keyHolders: Map<string, string>;
  /** project -> the ids of its records, so that export reads one project, not the whole store. */
  byProject: Map<string, Set<string>>;
}

/**
 * Creator Studio's storage in process memory. Every method does all its work synchronously
 * between two awaits, so each is atomic against every other call in this process.
 */
export function memoryStudio(): StudioStoragePort {
  const state: StudioState = { records: new Map(), siblings: new Map(), kindsUnder: new Map(), keyHolders: new Map(), byProject: new Map() };
  const { records, siblings, byProject } = state;
  return {
    insert: async (batch, limits = {}) => insertRecords(state, batch, limits),
    async get(id) {
      const record = records.get(id);
      return record ? copy(record) : null;
    },
    async listChildren(parentId, kind) {
      const found = (siblings.get(siblingsKey(parentId, kind)) ?? []).map((id) => copy(records.get(id)!));
      if (found[0]?.position !== null) return found;
      return found.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1));
    },
    async countChildren(parentId, kind) {
      return siblings.get(siblingsKey(parentId, kind))?.length ?? 0;
    },
    async listProject(projectId) {
      return [...(byProject.get(projectId) ?? [])].map((id) => copy(records.get(id)!));
    },
    update: async (id, expectedRevision, changes) => updateRecord(state, id, expectedRevision, changes),
    move: async (id, parentId, index, at, limits = {}) => moveRecord(state, id, parentId, index, at, limits),
    remove: async (id) => removeRecord(state, id),
    async ping() {},
  };
}

function listOf({ siblings, kindsUnder }: StudioState, parentId: string, kind: StudioKind): string[] {
  const key = siblingsKey(parentId, kind);
  let list = siblings.get(key);
  if (!list) {
    siblings.set(key, (list = []));
    let kinds = kindsUnder.get(parentId);
    if (!kinds) kindsUnder.set(parentId, (kinds = new Set()));
    kinds.add(kind);
  }
  return list;
}

/** Positions follow the list order again after a change to it. */
const renumber = ({ records }: StudioState, list: string[]) => list.forEach((id, index) => (records.get(id)!.position = index));

function place(state: StudioState, record: StudioRecord): void {
  const list = listOf(state, record.parent_id, record.kind);
  if (record.position === null) {
    list.push(record.id);
    return;
  }
  list.splice(Math.min(Math.max(record.position, 0), list.length), 0, record.id);
  renumber(state, list);
}

function unplace(state: StudioState, record: StudioRecord): void {
  const list = listOf(state, record.parent_id, record.kind);
  list.splice(list.indexOf(record.id), 1);
  if (record.position !== null) renumber(state, list);
}

/** All of the batch or none: every limit, id and key is checked before the first record is stored. */
function insertRecords(state: StudioState, batch: readonly StudioRecord[], limits: StudioLimits): void {
  const { records, siblings, keyHolders, byProject } = state;
  const ids = new Set<string>();
  const keys = new Set<string>();
  const added = new Map<string, number>();
  for (const record of batch) {
    const limit = limits[record.kind];
    if (limit !== undefined) {
      const where = siblingsKey(record.parent_id, record.kind);
      const count = (siblings.get(where)?.length ?? 0) + (added.get(where) ?? 0);
      if (count >= limit) throw new StudioParentFull(record.kind, limit);
      added.set(where, (added.get(where) ?? 0) + 1);
    }
    if (records.has(record.id) || ids.has(record.id)) throw new Error(`marketkit memoryStudio: the id ${record.id} is taken`);
    ids.add(record.id);
    for (const key of record.keys) {
      const held = uniqueKey(record, key);
      if (keyHolders.has(held) || keys.has(held)) throw new StudioKeyTaken(key);
      keys.add(held);
    }
  }
  for (const record of batch) {
    const stored = copy(record);
    records.set(stored.id, stored);
    let members = byProject.get(stored.project_id);
    if (!members) byProject.set(stored.project_id, (members = new Set()));
    members.add(stored.id);
    for (const key of stored.keys) keyHolders.set(uniqueKey(stored, key), stored.id);
    place(state, stored);
  }
}

function updateRecord({ records, keyHolders }: StudioState, ...[id, expectedRevision, changes]: Parameters<StudioStoragePort['update']>): Awaited<ReturnType<StudioStoragePort['update']>> {
  const record = records.get(id);
  if (!record) return { outcome: 'missing' };
  if (record.revision !== expectedRevision) return { outcome: 'stale' };
  for (const key of changes.keys) {
    const holder = keyHolders.get(uniqueKey(record, key));
    if (holder !== undefined && holder !== id) return { outcome: 'taken', key };
  }
  for (const key of record.keys) keyHolders.delete(uniqueKey(record, key));
  for (const key of changes.keys) keyHolders.set(uniqueKey(record, key), id);
  record.keys = [...changes.keys];
  record.data = copy(changes.data);
  record.updated_at = changes.updated_at;
  record.revision += 1;
  return { outcome: 'updated', record: copy(record) };
}

function moveRecord(state: StudioState, id: string, parentId: string, index: number, at: string, limits: StudioLimits): StudioRecord | null {
  const record = state.records.get(id);
  if (!record) return null;
  if (record.position === null) throw new Error(`marketkit memoryStudio: ${record.kind} records are not ordered; they cannot move`);
  const limit = limits[record.kind];
  if (limit !== undefined && parentId !== record.parent_id && (state.siblings.get(siblingsKey(parentId, record.kind))?.length ?? 0) >= limit) {
    throw new StudioParentFull(record.kind, limit);
  }
  unplace(state, record);
  record.parent_id = parentId;
  record.position = Math.max(0, index);
  place(state, record);
  record.updated_at = at;
  record.revision += 1;
  return copy(record);
}

/** The record and everything under it, found by walking its children kind by kind. */
function removeRecord(state: StudioState, id: string): boolean {
  const { records, siblings, kindsUnder, keyHolders, byProject } = state;
  const record = records.get(id);
  if (!record) return false;
  unplace(state, record);
  const doomed = [id];
  for (let i = 0; i < doomed.length; i++) {
    const parentId = doomed[i]!;
    for (const kind of kindsUnder.get(parentId) ?? []) {
      doomed.push(...(siblings.get(siblingsKey(parentId, kind)) ?? []));
      siblings.delete(siblingsKey(parentId, kind));
    }
    kindsUnder.delete(parentId);
  }
  for (const gone of doomed) {
    const removed = records.get(gone)!;
    for (const key of removed.keys) keyHolders.delete(uniqueKey(removed, key));
    byProject.get(removed.project_id)?.delete(gone);
    if (byProject.get(removed.project_id)?.size === 0) byProject.delete(removed.project_id);
    records.delete(gone);
  }
  return true;
}
