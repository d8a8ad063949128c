/**
 * The wire shapes of Creator Studio, derived from the resource table: what a record looks like,
 * what create, update and move take. Nothing here names a resource.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Strict, Timestamp } from '../schemas/common.js';
import { parentField, pascal, studioKinds, studioResources, type StudioKind, type StudioResource } from './resources.js';

/** The field that names a record in an operation's input: `card_id`. */
export const idField = (resource: StudioResource) => `${resource.kind}_id`;

const PathId = (what: string) => Type.String({ description: `The ${what} id (a UUID).` });
const Position = (what: string) =>
  Type.Integer({ minimum: 0, maximum: 100_000, description: `Index among the ${what}s of the same parent, 0 first; past the end means last.` });

/** A record as the API shows it: id, parent, project, position (ordered kinds), fields, times. */
function viewSchema(resource: StudioResource): TObject {
  const parent = parentField(resource);
  const fields = Object.fromEntries(Object.entries(resource.fields).map(([name, field]) => [name, field.schema]));
  return Strict(
    {
      id: Type.String({ format: 'uuid' }),
      ...(resource.parent === 'account' ? {} : { project_id: Type.String({ format: 'uuid' }) }),
      ...(parent && resource.parent !== 'project' ? { [parent]: Type.String({ format: 'uuid' }) } : {}),
      ...(resource.ordered ? { position: Type.Integer({ minimum: 0 }) } : {}),
      ...fields,
      created_at: Timestamp(),
      updated_at: Timestamp(),
    },
    { $id: `Studio${pascal(resource.kind)}`, description: resource.description },
  );
}

export interface StudioSchemas {
  view: TObject;
  list: TObject;
  /** Input of list: the parent's id (nothing for projects). */
  listInput: TObject;
  createInput: TObject;
  /** Input naming one record (get, delete). */
  oneInput: TObject;
  updateInput: TObject;
  /** Ordered kinds only. */
  moveInput: TObject | null;
}

function schemasOf(resource: StudioResource): StudioSchemas {
  const parent = parentField(resource);
  const parentInput: Record<string, TSchema> = parent ? { [parent]: PathId(resource.parent) } : {};
  const view = viewSchema(resource);
  const create: Record<string, TSchema> = { ...parentInput };
  const update: Record<string, TSchema> = { [idField(resource)]: PathId(resource.title) };
  for (const [name, field] of Object.entries(resource.fields)) {
    create[name] = field.required ? field.schema : Type.Optional(field.schema);
    update[name] = Type.Optional(field.schema);
  }
  if (resource.ordered) create.position = Type.Optional(Position(resource.title));
  return {
    view,
    list: Strict({ data: Type.Array(view) }, { $id: `Studio${pascal(resource.kind)}List` }),
    listInput: Strict(parentInput),
    createInput: Strict(create),
    oneInput: Strict({ [idField(resource)]: PathId(resource.title) }),
    // The id and at least one field.
    updateInput: Strict(update, { minProperties: 2 }),
    moveInput: resource.ordered
      ? Strict({
          [idField(resource)]: PathId(resource.title),
          ...(parent ? { [parent]: Type.Optional(Type.String({ format: 'uuid', description: `Another ${resource.parent} of the same project to move it to; default: where it is.` })) } : {}),
          position: Position(resource.title),
        })
      : null,
  };
}

export const studioSchemas = Object.fromEntries(studioKinds.map((kind) => [kind, schemasOf(studioResources[kind])])) as Record<StudioKind, StudioSchemas>;

export const DeletedSchema = Strict(
  { success: Type.Literal(true), id: Type.String({ format: 'uuid' }) },
  { $id: 'StudioDeleted', description: 'The record and everything in it are gone.' },
);
