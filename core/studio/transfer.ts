/**
 * export_project and import_project: a project as one versioned JSON document, and back as a new
 * project. The document's shape is derived from the resource table: one array per kind, each item
 * its id, its parent (where that is not the project), its position (ordered kinds) and its fields.
 * An import is checked whole before anything is stored, then stored in one all-or-nothing call.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { ApiError, invalidInput } from '../errors.js';
import { defineOperation, nowIso } from '../operations/context.js';
import { StudioParentFull, type StudioRecord } from '../ports/studio.js';
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

/** Every problem of the document a schema cannot see, as INVALID_INPUT naming the item. */
function checkDocument(document: Document): void {
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
  for (const kind of studioKinds) {
    const resource = studioResources[kind];
    const key = pluralKey(resource);
    const items = kind === 'project' ? [document.project] : (document[key] as Item[]);
    for (const [i, item] of items.entries()) {
      const path = kind === 'project' ? 'document.project' : `document.${key}[${i}]`;
      const data = Object.fromEntries(Object.keys(resource.fields).map((field) => [field, item[field]]));
      try {
        checkData(resource, data, index, item.id);
      } catch (error) {
        const detail = error instanceof ApiError ? error.details?.[0] : undefined;
        if (!detail) throw error;
        const message = error instanceof ApiError && error.code === 'CONFLICT' ? `repeats the ${detail.path} of another ${resource.title} of the document` : detail.message;
        throw invalidInput(`${path}.${detail.path}`, message);
      }
    }
  }
}

export const importProject = defineOperation({
  name: 'importProject',
  summary: 'Import a project document as a new project',
  description:
    'Checks the whole document first (version, shapes, ids, references, limits), then creates the project and everything in it ' +
    'with new ids, references remapped, in one step: a refused document leaves nothing behind. `name` replaces the project name.',
  scope: 'studio:write',
  requestClass: 'write',
  errors: ['NOT_FOUND', 'CONFLICT'],
  input: Strict({
    document: Type.Object({}, { description: 'A document from export_project (format marketkit.studio.project, version 1).' }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The new project’s name; default: the document’s.' })),
  }),
  output: Strict({ project: studioSchemas.project.view, records: Type.Integer({ minimum: 1 }) }, { $id: 'StudioImported' }),
  async run(ctx, input) {
    const raw = input.document as Record<string, unknown>;
    if (raw.format !== studioDocumentFormat) throw invalidInput('document.format', `must be ${studioDocumentFormat}`);
    if (raw.version !== studioDocumentVersion) throw invalidInput('document.version', `${JSON.stringify(raw.version)} is not a version this server reads (it reads ${studioDocumentVersion})`);
    const document = validate(StudioDocumentSchema, raw, 'document') as unknown as Document;
    checkDocument(document);
    const store = studioStore(ctx);
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
      }
    }
    try {
      await store.insert(records, studioLimits);
    } catch (error) {
      // The document was checked whole, so only the account's number of projects can be over.
      if (error instanceof StudioParentFull) throw parentFull(error.kind);
      throw error;
    }
    const project = await loadOwned(ctx, 'project', projectId);
    return { project: recordView(project, null), records: records.length };
  },
});
