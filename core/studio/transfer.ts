/**
 * export_project and import_project: a project as one versioned JSON document, and back as a new
 * project. The document's shape is derived from the resource table: one array per kind, each item
 * its id, its parent (where that is not the project), its position (ordered kinds) and its fields.
 * An import is checked whole before anything is stored, then stored in one all-or-nothing call.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { ApiError, invalidInput } from '../errors.js';
import { defineOperation, nowIso } from '../operations/context.js';
import { StudioParentFull, type StudioRecord, type StudioStoragePort } from '../ports/studio.js';
import { Strict, Timestamp } from '../schemas/common.js';
import { validate } from '../validation.js';
import { checkData, loadOwned, parentFull, projectIndex, recordView, studioLimits, studioStore, uniqueKeys } from './records.js';
import { studioSchemas } from './schemas.js';
import { parentField, pluralKey, studioKinds, studioResources, type StudioKind } from './resources.js';

export const studioDocumentFormat = 'marketkit.studio.project';
export const studioDocumentVersion = 1;
/** Most records one document may hold, whatever their kinds. */
export const maxDocumentRecords = 20_000;

const children = studioKinds.filter((kind) => kind !== 'project');

function itemSchema(kind: StudioKind): TObject {
  const resource = studioResources[kind];
  const parent = parentField(resource);
  const fields: Record<string, TSchema> = { id: Type.String({ format: 'uuid' }) };
  if (parent && resource.parent !== 'project' && resource.parent !== 'account') fields[parent] = Type.String({ format: 'uuid' });
  if (resource.ordered) fields.position = Type.Integer({ minimum: 0 });
  for (const [name, field] of Object.entries(resource.fields)) fields[name] = field.schema;
  return Strict(fields);
}

/** The document, version 1: what export gives and import takes. */
export const StudioDocumentSchema = Strict(
  {
    format: Type.Literal(studioDocumentFormat),
    version: Type.Literal(studioDocumentVersion),
    exported_at: Timestamp(),
    project: itemSchema('project'),
    ...Object.fromEntries(children.map((kind) => [pluralKey(studioResources[kind]), Type.Array(itemSchema(kind), { maxItems: maxDocumentRecords })])),
  },
  { $id: 'StudioProjectDocument', description: 'One project with everything in it; ids are the exporting server’s and are replaced on import.' },
);

type Item = Record<string, unknown> & { id: string };
type Document = Record<string, unknown> & { project: Item };

export const exportProject = defineOperation({
  name: 'exportProject',
  summary: 'Export a project as one versioned JSON document',
  description: 'Everything in the project, for a backup or to import as a copy (POST /studio/import).',
  scope: 'studio:read',
  requestClass: 'read',
  errors: ['NOT_FOUND'],
  input: Strict({ project_id: Type.String({ description: 'The project id (a UUID).' }) }),
  output: StudioDocumentSchema,
  async run(ctx, input) {
    const project = await loadOwned(ctx, 'project', input.project_id);
    const index = await projectIndex(studioStore(ctx), project.id);
    const byKind = new Map<StudioKind, StudioRecord[]>(studioKinds.map((kind) => [kind, []]));
    for (const record of index.values()) byKind.get(record.kind)!.push(record);
    const item = (record: StudioRecord): Item => {
      const { project_id: _p, created_at: _c, updated_at: _u, ...rest } = recordView(record, index);
      return rest as Item;
    };
    const document: Record<string, unknown> = { format: studioDocumentFormat, version: studioDocumentVersion, exported_at: nowIso(ctx), project: item(project) };
    for (const kind of children) {
      const records = byKind.get(kind)!.sort((a, b) => a.parent_id.localeCompare(b.parent_id) || (a.position ?? 0) - (b.position ?? 0) || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
      document[pluralKey(studioResources[kind])] = records.map(item);
    }
    return document;
  },
});

/**
 * How long an import works before it lets other requests run. An import of the largest document
 * (docs/studio.md: the JSON body limit, 1 MiB by default, and at most 20,000 items) takes a few
 * hundred milliseconds of work in all; done in slices of this length, with the event loop free in
 * between, it never holds other clients up for longer than one slice (docs/security.md, "Studio import").
 */
export const importSliceMs = 5;
/** Records stored per storage call: a call is synchronous in SQLite, so it is kept short too. */
export const importInsertBatch = 100;

/** Cooperative slicing: `due()` is cheap; `pause()` yields to the event loop (timers and I/O run). */
function createSlicer(sliceMs: number) {
  let sliceStart = performance.now();
  return {
    due: () => performance.now() - sliceStart >= sliceMs,
    async pause(): Promise<void> {
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
      sliceStart = performance.now();
    },
  };
}
type Slicer = ReturnType<typeof createSlicer>;

/**
 * Each kind's item schema for the import's check, without `uniqueItems`: TypeBox checks it by
 * hashing every element (BigInt arithmetic per byte), which over a large document costs more than
 * the rest of the check and fills the heap with garbage. Those lists hold ids or tags (strings), so
 * a Set tells the same (uniqueLists).
 */
const itemSchemas = new Map<StudioKind, { schema: TObject; uniqueLists: string[] }>(
  studioKinds.map((kind) => {
    const full = itemSchema(kind);
    const uniqueLists = Object.keys(full.properties).filter((name) => (full.properties[name] as TSchema).uniqueItems === true);
    const properties = { ...full.properties };
    for (const name of uniqueLists) {
      const { uniqueItems: _dropped, ...rest } = properties[name] as TSchema;
      properties[name] = rest as TSchema;
    }
    return [kind, { schema: Strict(properties), uniqueLists }];
  }),
);

/**
 * The document's shape without its items' fields: the version, the project, and each kind as a
 * list of objects. The items are then checked one by one (itemSchemas), in slices, with the same
 * paths in the messages as one check of the whole StudioDocumentSchema gives.
 */
const DocumentShellSchema = Strict({
  format: Type.Literal(studioDocumentFormat),
  version: Type.Literal(studioDocumentVersion),
  exported_at: Timestamp(),
  project: itemSchema('project'),
  ...Object.fromEntries(children.map((kind) => [pluralKey(studioResources[kind]), Type.Array(Type.Object({}), { maxItems: maxDocumentRecords })])),
});

/** The document checked against StudioDocumentSchema, item by item, in slices. */
async function validateDocument(raw: Record<string, unknown>, slicer: Slicer): Promise<Document> {
  const document = validate(DocumentShellSchema, raw, 'document') as unknown as Document;
  for (const kind of children) {
    const key = pluralKey(studioResources[kind]);
    const { schema, uniqueLists } = itemSchemas.get(kind)!;
    for (const [i, item] of (document[key] as Item[]).entries()) {
      validate(schema, item, `document.${key}[${i}]`);
      for (const name of uniqueLists) {
        const list = item[name] as string[] | undefined;
        if (list && new Set(list).size !== list.length) throw invalidInput(`document.${key}[${i}].${name}`, 'must not hold the same value twice');
      }
      if (slicer.due()) await slicer.pause();
    }
  }
  return document;
}

/** Every problem of the document a schema cannot see, as INVALID_INPUT naming the item. */
async function checkDocument(document: Document, slicer: Slicer): Promise<void> {
  const kinds = new Map<string, StudioKind>([[document.project.id, 'project']]);
  const countPerParent = new Map<string, number>();
  let total = 1;
  for (const kind of children) {
    const key = pluralKey(studioResources[kind]);
    for (const [i, item] of (document[key] as Item[]).entries()) {
      if (kinds.has(item.id)) throw invalidInput(`document.${key}[${i}].id`, 'is used by another item of the document');
      kinds.set(item.id, kind);
      if (++total > maxDocumentRecords) throw invalidInput(`document.${key}`, `makes the document hold more than ${maxDocumentRecords} items`);
    }
  }
  const index = new Map<string, StudioRecord>();
  for (const kind of studioKinds) {
    const resource = studioResources[kind];
    const key = pluralKey(resource);
    const items = kind === 'project' ? [document.project] : (document[key] as Item[]);
    const parent = parentField(resource);
    for (const [i, item] of items.entries()) {
      const path = kind === 'project' ? 'document.project' : `document.${key}[${i}]`;
      let parentId: string = document.project.id;
      if (parent && resource.parent !== 'project' && resource.parent !== 'account') {
        parentId = item[parent] as string;
        if (kinds.get(parentId) !== resource.parent) throw invalidInput(`${path}.${parent}`, `names no ${resource.parent} of the document`);
      }
      const count = (countPerParent.get(`${parentId} ${kind}`) ?? 0) + 1;
      if (kind !== 'project' && count > resource.maxPerParent) throw invalidInput(path, `is more than the ${resource.maxPerParent} ${resource.title}s one ${resource.parent} may hold`);
      countPerParent.set(`${parentId} ${kind}`, count);
      index.set(item.id, { id: item.id, kind, data: item } as unknown as StudioRecord);
    }
  }
  const onCycle = pagesOnCycles(document.wiki_pages as Item[]);
  // Unique fields by a set of the values seen: checkData's own check reads every record of the
  // project per record, which over a whole document is quadratic. And wiki pages are checked for
  // cycles once for all (onCycle) rather than by a walk up from each page.
  const taken = new Set<string>();
  for (const kind of studioKinds) {
    const resource = studioResources[kind];
    const withoutUnique = resource.unique.length > 0 ? { ...resource, unique: [] } : resource;
    const key = pluralKey(resource);
    const items = kind === 'project' ? [document.project] : (document[key] as Item[]);
    for (const [i, item] of items.entries()) {
      const path = kind === 'project' ? 'document.project' : `document.${key}[${i}]`;
      const data = Object.fromEntries(Object.keys(resource.fields).map((field) => [field, item[field]]));
      const page = kind === 'wiki_page';
      if (page && data.parent_page_id === item.id) throw invalidInput(`${path}.parent_page_id`, 'cannot name the wiki page itself');
      if (page && onCycle.has(item.id)) throw invalidInput(`${path}.parent_page_id`, 'would put the page under itself');
      try {
        // A page is checked without its own id: that is what walks up its ancestors, done above.
        checkData(withoutUnique, data, index, page ? undefined : item.id);
      } catch (error) {
        const detail = error instanceof ApiError ? error.details?.[0] : undefined;
        if (!detail) throw error;
        throw invalidInput(`${path}.${detail.path}`, detail.message);
      }
      for (const field of resource.unique) {
        const value = `${kind}\n${field}\n${JSON.stringify(data[field])}`;
        if (taken.has(value)) throw invalidInput(`${path}.${field}`, `repeats the ${field} of another ${resource.title} of the document`);
        taken.add(value);
      }
      if (slicer.due()) await slicer.pause();
    }
  }
}

/**
 * The ids of the wiki pages that are their own ancestors (on a cycle of parent_page_id), in one
 * pass over the pages: each chain is followed once, marking the pages on the way.
 */
function pagesOnCycles(pages: Item[]): Set<string> {
  const parentOf = new Map(pages.map((page) => [page.id, page.parent_page_id as string | null]));
  const state = new Map<string, 'walking' | 'done'>();
  const onCycle = new Set<string>();
  for (const page of pages) {
    const path: string[] = [];
    let at: string | null | undefined = page.id;
    while (at != null && parentOf.has(at) && !state.has(at)) {
      state.set(at, 'walking');
      path.push(at);
      at = parentOf.get(at);
    }
    // Met a page of this very walk again: it and the pages after it on the walk form a cycle.
    if (at != null && state.get(at) === 'walking') for (const id of path.slice(path.indexOf(at))) onCycle.add(id);
    for (const id of path) state.set(id, 'done');
  }
  return onCycle;
}

export const importProject = defineOperation({
  name: 'importProject',
  summary: 'Import a project document as a new project',
  description:
    'Checks the whole document first (version, shapes, ids, references, limits), then creates the project and everything in it ' +
    'with new ids, references remapped: a refused document leaves nothing behind. `name` replaces the project name. ' +
    'At most 20,000 items, in a body of at most the JSON limit (1 MiB by default).',
  scope: 'studio:write',
  requestClass: 'write',
  errors: ['NOT_FOUND', 'CONFLICT'],
  input: Strict({
    document: Type.Object({}, { description: 'A document from export_project (format marketkit.studio.project, version 1).' }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The new project’s name; default: the document’s.' })),
  }),
  output: Strict({ project: studioSchemas.project.view, records: Type.Integer({ minimum: 1 }) }, { $id: 'StudioImported' }),
  async run(ctx, input) {
    const slicer = createSlicer(importSliceMs);
    const raw = input.document as Record<string, unknown>;
    if (raw.format !== studioDocumentFormat) throw invalidInput('document.format', `must be ${studioDocumentFormat}`);
    if (raw.version !== studioDocumentVersion) throw invalidInput('document.version', `${JSON.stringify(raw.version)} is not a version this server reads (it reads ${studioDocumentVersion})`);
    const document = await validateDocument(raw, slicer);
    await checkDocument(document, slicer);
    const store = studioStore(ctx);
    // Refused before anything is stored when the account already holds its projects (checked again, atomically, below).
    if ((await store.countChildren(ctx.caller.account.id, 'project')) >= studioResources.project.maxPerParent) throw parentFull('project');
    const newId = new Map<string, string>();
    const remap = (id: string) => newId.get(id) ?? id;
    for (const kind of studioKinds) for (const item of kind === 'project' ? [document.project] : (document[pluralKey(studioResources[kind])] as Item[])) newId.set(item.id, ctx.ports.ids.uuid());
    const at = nowIso(ctx);
    const projectId = remap(document.project.id);
    const records: StudioRecord[] = [];
    for (const kind of studioKinds) {
      const resource = studioResources[kind];
      const parent = parentField(resource);
      const items = kind === 'project' ? [document.project] : [...(document[pluralKey(resource)] as Item[])];
      // Ordered siblings go in by their document position, so each lands at the index it had.
      if (resource.ordered) items.sort((a, b) => (a.position as number) - (b.position as number));
      for (const item of items) {
        const data: Record<string, unknown> = {};
        for (const field of Object.keys(resource.fields)) {
          const value = item[field];
          const target = resource.references[field];
          data[field] = target ? (Array.isArray(value) ? value.map((id) => remap(id as string)) : value == null ? null : remap(value as string)) : value;
        }
        if (kind === 'project' && input.name) data.name = input.name;
        const parentId =
          resource.parent === 'account' ? ctx.caller.account.id : resource.parent === 'project' ? projectId : remap(item[parent!] as string);
        records.push({
          id: remap(item.id),
          kind,
          owner_id: ctx.caller.account.id,
          project_id: projectId,
          parent_id: parentId,
          position: resource.ordered ? Number.MAX_SAFE_INTEGER : null,
          data,
          created_at: at,
          updated_at: at,
          revision: 1,
          keys: uniqueKeys(resource, data),
        });
        if (slicer.due()) await slicer.pause();
      }
    }
    await storeInSlices(store, records, projectId, slicer);
    const project = await loadOwned(ctx, 'project', projectId);
    return { project: recordView(project, null), records: records.length };
  },
});

/**
 * Stores an import's records in batches of importInsertBatch, the event loop free between them,
 * so that no storage call holds other requests up for long. What makes it all-or-nothing for every
 * reader: the project goes in last, in the final call. Until then its records hang under a project
 * that does not exist, under ids nobody has been told, so no request reaches them; a refusal or a
 * storage failure on the way removes them again (remove() takes each record's subtree with it).
 * Only a process that dies mid-import leaves such records behind, unreachable.
 */
async function storeInSlices(store: StudioStoragePort, records: StudioRecord[], projectId: string, slicer: Slicer): Promise<void> {
  const project = records.find((record) => record.id === projectId)!;
  const rest = records.filter((record) => record !== project);
  let stored = 0;
  try {
    for (let from = 0; from < rest.length; from += importInsertBatch) {
      await store.insert(rest.slice(from, from + importInsertBatch), studioLimits);
      stored = from + importInsertBatch;
      await slicer.pause();
    }
    await store.insert([project], studioLimits);
  } catch (error) {
    // Records directly under the project carry everything else stored under them.
    const tops = rest.slice(0, stored).filter((record) => record.parent_id === projectId);
    await Promise.allSettled(tops.map((record) => store.remove(record.id)));
    // The document was checked whole, so only the account's number of projects can be over.
    if (error instanceof StudioParentFull) throw parentFull(error.kind);
    throw error;
  }
}
