/**
 * The rules every Creator Studio operation shares: finding a caller's record (another
 * account's is a 404), the checks the schemas cannot express (references, unique fields, dates,
 * wiki page cycles), and the wire view of a record.
 */
import { ApiError, invalidInput } from '../errors.js';
import type { OperationContext } from '../operations/context.js';
import type { StudioLimits, StudioRecord, StudioStoragePort } from '../ports/studio.js';
import { parentField, studioResources, type StudioKind, type StudioResource } from './resources.js';

export function studioStore(ctx: OperationContext): StudioStoragePort {
  const store = ctx.ports.studio;
  if (!store) throw new ApiError('NOT_FOUND', 'Creator Studio is not enabled on this server.');
  return store;
}

/** The caller's record of `kind`, or 404 (missing, another kind, or another account's). */
export async function loadOwned(ctx: OperationContext, kind: StudioKind, id: string): Promise<StudioRecord> {
  const record = await studioStore(ctx).get(id);
  if (!record || record.kind !== kind || record.owner_id !== ctx.caller.account.id) {
    throw new ApiError('NOT_FOUND', `No ${studioResources[kind].title} with this id.`);
  }
  return record;
}

/** The parent a new record of `resource` goes under: the caller's account or the caller's record. */
export async function loadParent(ctx: OperationContext, resource: StudioResource, parentId: string | undefined): Promise<{ parentId: string; projectId: string | null }> {
  if (resource.parent === 'account') return { parentId: ctx.caller.account.id, projectId: null };
  const parent = await loadOwned(ctx, resource.parent, parentId ?? '');
  return { parentId: parent.id, projectId: parent.project_id };
}

const isRealDate = (value: string) => {
  const time = Date.parse(`${value}T00:00:00.000Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === value;
};

/** Every record of the project by id (export reads them all anyway). */
export async function projectIndex(store: StudioStoragePort, projectId: string): Promise<Map<string, StudioRecord>> {
  return new Map((await store.listProject(projectId)).map((record) => [record.id, record]));
}

/** Most ancestors followed up a self-referencing hierarchy (wiki pages) before giving up. */
const maxDepth = 1000;

/**
 * Just the records that `checkData` and `recordView` need for these `data` of `resource` in one
 * project: what their references name (only if in the project) and the ancestors up a
 * self-referencing hierarchy. (Unique fields are the storage port's to enforce, as keys.) A few
 * look-ups instead of the whole project, so a write costs the same in a small and a big project.
 */
export async function referenceIndex(store: StudioStoragePort, projectId: string, resource: StudioResource, datas: Record<string, unknown>[]): Promise<Map<string, StudioRecord>> {
  const index = new Map<string, StudioRecord>();
  const wanted = new Set<string>();
  for (const data of datas) {
    for (const name of Object.keys(resource.references)) {
      const value = data[name];
      for (const id of Array.isArray(value) ? value : value == null ? [] : [value]) if (typeof id === 'string') wanted.add(id);
    }
  }
  const fetch = async (ids: Iterable<string>) => {
    const found = await Promise.all([...ids].filter((id) => !index.has(id)).map((id) => store.get(id)));
    const added: StudioRecord[] = [];
    for (const record of found) if (record && record.project_id === projectId) index.set(record.id, record), added.push(record);
    return added;
  };
  let frontier = await fetch(wanted);
  const selfReferences = Object.entries(resource.references).filter(([, kind]) => kind === resource.kind).map(([name]) => name);
  for (let depth = 0; selfReferences.length > 0 && frontier.length > 0 && depth < maxDepth; depth++) {
    const up = frontier.flatMap((record) => selfReferences.map((name) => record.data[name])).filter((id): id is string => typeof id === 'string');
    frontier = await fetch(up);
  }
  return index;
}

/**
 * The checks of a record's complete `data` that a schema cannot make, in field order. `self` is
 * the record being changed (absent on create); `index` the project's records.
 */
export function checkData(resource: StudioResource, data: Record<string, unknown>, index: Map<string, StudioRecord>, self?: string): void {
  // The schema checks the YYYY-MM-DD form; February 30th passes it.
  for (const [name, value] of Object.entries(data)) {
    if (name.endsWith('_date') && typeof value === 'string' && !isRealDate(value)) throw invalidInput(name, 'is not a real date');
  }
  if (typeof data.start_date === 'string' && typeof data.end_date === 'string' && data.end_date < data.start_date) {
    throw invalidInput('end_date', 'must not be before start_date');
  }
  for (const [name, kind] of Object.entries(resource.references)) {
    const value = data[name];
    const list = Array.isArray(value) ? (value as string[]) : value == null ? [] : [value as string];
    list.forEach((id, i) => {
      const target = index.get(id);
      const path = Array.isArray(value) ? `${name}[${i}]` : name;
      if (!target || target.kind !== kind) throw invalidInput(path, `names no ${studioResources[kind].title} of this project`);
      if (id === self) throw invalidInput(path, `cannot name the ${resource.title} itself`);
    });
  }
  if (resource.kind === 'wiki_page' && self && typeof data.parent_page_id === 'string') {
    // Walk up from the new parent: meeting this page again would make it its own ancestor.
    const seen = new Set<string>();
    for (let at: string | null = data.parent_page_id; at && !seen.has(at); at = (index.get(at)?.data.parent_page_id as string | null) ?? null) {
      if (at === self) throw invalidInput('parent_page_id', 'would put the page under itself');
      seen.add(at);
    }
  }
  for (const name of resource.unique) {
    const taken = [...index.values()].some((other) => other.kind === resource.kind && other.id !== self && other.data[name] === data[name]);
    if (taken) throw new ApiError('CONFLICT', `Another ${resource.title} of this project has this ${name}.`, { details: [{ path: name, message: 'is taken' }] });
  }
}

/** References to records deleted since read as gone: dropped from lists, null for one id. */
function liveData(resource: StudioResource, data: Record<string, unknown>, index: Map<string, StudioRecord> | null): Record<string, unknown> {
  if (!index) return data;
  const out = { ...data };
  for (const [name, kind] of Object.entries(resource.references)) {
    const alive = (id: unknown) => index.get(id as string)?.kind === kind;
    const value = out[name];
    if (Array.isArray(value)) out[name] = value.filter(alive);
    else if (value != null && !alive(value)) out[name] = null;
  }
  return out;
}

/** The record as the API shows it. `index` is needed for kinds with references. */
export function recordView(record: StudioRecord, index: Map<string, StudioRecord> | null): Record<string, unknown> {
  const resource = studioResources[record.kind];
  const parent = parentField(resource);
  return {
    id: record.id,
    ...(resource.parent === 'account' ? {} : { project_id: record.project_id }),
    ...(parent && resource.parent !== 'project' ? { [parent]: record.parent_id } : {}),
    ...(resource.ordered ? { position: record.position } : {}),
    ...liveData(resource, record.data, index),
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

export const hasReferences = (resource: StudioResource) => Object.keys(resource.references).length > 0;

/** The limits per parent of every kind, as the storage port enforces them. */
export const studioLimits: StudioLimits = Object.fromEntries(Object.values(studioResources).map((resource) => [resource.kind, resource.maxPerParent]));

/** 409 saying how many records of the kind one parent may hold. */
export function parentFull(kind: StudioKind): ApiError {
  const resource = studioResources[kind];
  const holder = resource.parent === 'account' ? 'An account' : `A ${resource.parent}`;
  return new ApiError('CONFLICT', `${holder} holds at most ${resource.maxPerParent} ${resource.title}s.`);
}

/** The record's unique keys for the storage port: `slug:"lore"`. */
export const uniqueKeys = (resource: StudioResource, data: Record<string, unknown>): string[] => resource.unique.map((field) => `${field}:${JSON.stringify(data[field])}`);

/** 409 naming the unique field whose value another record of the project holds. */
export function keyTaken(resource: StudioResource, key: string): ApiError {
  const field = key.slice(0, key.indexOf(':'));
  return new ApiError('CONFLICT', `Another ${resource.title} of this project has this ${field}.`, { details: [{ path: field, message: 'is taken' }] });
}
