/**
 * export_project and import_project: a project as one versioned JSON document, and back as a new
 * project. The document's shape is derived from the resource table (document.ts). An import is
 * checked whole before anything is stored (document-checks.ts), then stored in one all-or-nothing call.
 */
import { Type } from '@sinclair/typebox';
import { invalidInput } from '../errors.js';
import { defineOperation, nowIso } from '../operations/context.js';
import { StudioParentFull, type StudioRecord, type StudioStoragePort } from '../ports/studio.js';
import { Strict } from '../schemas/common.js';
import { checkDocument, validateDocument } from './document-checks.js';
import { children, StudioDocumentSchema, studioDocumentFormat, studioDocumentVersion, type Item } from './document.js';
import { loadOwned, parentFull, projectIndex, recordView, studioLimits, studioStore, uniqueKeys } from './record-rules.js';
import { studioSchemas } from './schemas.js';
import { parentField, pluralKey, studioKinds, studioResources, type StudioKind } from './resources.js';
import { createSlicer, type Slicer } from './slicer.js';

export { maxDocumentRecords, StudioDocumentSchema, studioDocumentFormat, studioDocumentVersion } from './document.js';

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
