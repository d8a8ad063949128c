/**
 * The project document of export_project and import_project, derived from the resource table: one
 * array per kind, each item its id, its parent (where that is not the project), its position
 * (ordered kinds) and its fields.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Strict, Timestamp } from '../schemas/common.js';
import { parentField, pluralKey, studioKinds, studioResources, type StudioKind } from './resources.js';

export const studioDocumentFormat = 'marketkit.studio.project';
export const studioDocumentVersion = 1;
/** Most records one document may hold, whatever their kinds. */
export const maxDocumentRecords = 20_000;

/** The kinds a document lists beside its project. */
export const children = studioKinds.filter((kind) => kind !== 'project');

/** One kind's item: its id, its parent (where that is not the project), its position (ordered kinds), its fields. */
export function itemSchema(kind: StudioKind): TObject {
  const resource = studioResources[kind];
  const parent = parentField(resource);
  const fields: Record<string, TSchema> = { id: Type.String({ format: 'uuid' }) };
  if (parent && resource.parent !== 'project' && resource.parent !== 'account') fields[parent] = Type.String({ format: 'uuid' });
  // The stored position is a 32-bit column; an import never needs more than its own size.
  if (resource.ordered) fields.position = Type.Integer({ minimum: 0, maximum: 100_000 });
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

export type Item = Record<string, unknown> & { id: string };
export type Document = Record<string, unknown> & { project: Item };
