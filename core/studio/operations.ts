/**
 * list, get, create, update and delete for every resource of the table, and move for the
 * ordered ones: one generic definition each, instantiated per resource. REST and the local MCP
 * process render these (core/studio/routes.ts, core/studio/tools.ts).
 */
import { ApiError } from '../errors.js';
import { retryWhileStale, stale } from '../changes/commit.js';
import { defineOperation, nowIso, type AnyOperation, type OperationContext } from '../operations/context.js';
import { StudioKeyTaken, StudioParentFull, type StudioRecord } from '../ports/studio.js';
import { checkData, hasReferences, keyTaken, loadOwned, loadParent, parentFull, recordView, referenceIndex, studioLimits, studioStore, uniqueKeys } from './record-rules.js';
import { parentField, pascal, pluralKey, studioKinds, studioResources, type StudioKind, type StudioResource } from './resources.js';
import { DeletedSchema, idField, studioSchemas } from './schemas.js';

export interface StudioOperations {
  list: AnyOperation;
  get: AnyOperation;
  create: AnyOperation;
  update: AnyOperation;
  delete: AnyOperation;
  move: AnyOperation | null;
}

type Input = Record<string, unknown>;

/** A read of `records` as views, with the project's records at hand where references need them. */
async function views(ctx: OperationContext, resource: StudioResource, projectId: string | null, records: StudioRecord[]) {
  const index = projectId && Object.keys(resource.references).length > 0 ? await referenceIndex(studioStore(ctx), projectId, resource, records.map((r) => r.data)) : null;
  return records.map((record) => recordView(record, index));
}

function operationsOf(resource: StudioResource): StudioOperations {
  return {
    list: listOperation(resource),
    get: getOperation(resource),
    create: createOperation(resource),
    update: updateOperation(resource),
    delete: deleteOperation(resource),
    move: moveOperation(resource),
  };
}

const idOf = (resource: StudioResource, input: Input) => input[idField(resource)] as string;
// Every studio operation can be 404: a server without studio storage has none.
const notFound = ['NOT_FOUND'] as const;

function listOperation(resource: StudioResource) {
  const parent = parentField(resource);
  return defineOperation({
    name: `list${pascal(pluralKey(resource))}`,
    summary: resource.parent === 'account' ? "List the caller's projects" : `List the ${resource.title}s of a ${resource.parent}`,
    description: resource.ordered ? `In position order. ${resource.description}` : `Oldest first. ${resource.description}`,
    scope: 'studio:read',
    requestClass: 'read',
    errors: notFound,
    input: studioSchemas[resource.kind].listInput,
    output: studioSchemas[resource.kind].list,
    async run(ctx, input: Input) {
      const { parentId, projectId } = await loadParent(ctx, resource, parent ? (input[parent] as string) : undefined);
      return { data: await views(ctx, resource, projectId, await studioStore(ctx).listChildren(parentId, resource.kind)) };
    },
  });
}

function getOperation(resource: StudioResource) {
  return defineOperation({
    name: `get${pascal(resource.kind)}`,
    summary: `Get one ${resource.title}`,
    description: resource.description,
    scope: 'studio:read',
    requestClass: 'read',
    errors: notFound,
    input: studioSchemas[resource.kind].oneInput,
    output: studioSchemas[resource.kind].view,
    async run(ctx, input: Input) {
      const record = await loadOwned(ctx, resource.kind, idOf(resource, input));
      return (await views(ctx, resource, record.project_id, [record]))[0];
    },
  });
}

function createOperation(resource: StudioResource) {
  return defineOperation({
    name: `create${pascal(resource.kind)}`,
    summary: `Create a ${resource.title}`,
    description: `${resource.description}${resource.ordered ? ' Without position it goes last.' : ''}`,
    scope: 'studio:write',
    requestClass: 'write',
    errors: ['NOT_FOUND', 'CONFLICT'],
    input: studioSchemas[resource.kind].createInput,
    output: studioSchemas[resource.kind].view,
    run: (ctx, input: Input) => createRecord(ctx, resource, input),
  });
}

/** A new record of `resource` under the parent the input names, its fields' defaults filled in. */
async function createRecord(ctx: OperationContext, resource: StudioResource, input: Input) {
  const store = studioStore(ctx);
  const parent = parentField(resource);
  const { parentId, projectId } = await loadParent(ctx, resource, parent ? (input[parent] as string) : undefined);
  const data: Input = {};
  for (const [field, spec] of Object.entries(resource.fields)) data[field] = Object.prototype.hasOwnProperty.call(input, field) ? input[field] : structuredClone(spec.default);
  const index = projectId && hasReferences(resource) ? await referenceIndex(store, projectId, resource, [data]) : new Map<string, StudioRecord>();
  checkData(resource, data, index);
  const id = ctx.ports.ids.uuid();
  const at = nowIso(ctx);
  const record: StudioRecord = {
    id,
    kind: resource.kind,
    owner_id: ctx.caller.account.id,
    project_id: projectId ?? id,
    parent_id: parentId,
    position: resource.ordered ? ((input.position as number | undefined) ?? Number.MAX_SAFE_INTEGER) : null,
    data,
    created_at: at,
    updated_at: at,
    revision: 1,
    keys: uniqueKeys(resource, data),
  };
  try {
    await store.insert([record], studioLimits);
  } catch (error) {
    if (error instanceof StudioKeyTaken) throw keyTaken(resource, error.key);
    if (error instanceof StudioParentFull) throw parentFull(error.kind);
    throw error;
  }
  const stored = (await store.get(id)) ?? record;
  return recordView(stored, index.size ? index : null);
}

function updateOperation(resource: StudioResource) {
  return defineOperation({
    name: `update${pascal(resource.kind)}`,
    summary: `Change a ${resource.title}`,
    description: 'Only the fields sent change.',
    scope: 'studio:write',
    requestClass: 'write',
    errors: ['NOT_FOUND', 'CONFLICT'],
    input: studioSchemas[resource.kind].updateInput,
    output: studioSchemas[resource.kind].view,
    async run(ctx, input: Input) {
      const store = studioStore(ctx);
      const { [idField(resource)]: id, ...changes } = input;
      // A compare-and-set at the revision read, on the one retry path (core/changes/commit.ts); studio records have no events.
      return retryWhileStale(async () => {
        const record = await loadOwned(ctx, resource.kind, id as string);
        const data = { ...record.data, ...changes };
        const index = hasReferences(resource) ? await referenceIndex(store, record.project_id, resource, [data]) : new Map<string, StudioRecord>();
        checkData(resource, data, index, record.id);
        const result = await store.update(record.id, record.revision, { data, keys: uniqueKeys(resource, data), updated_at: nowIso(ctx) });
        if (result.outcome === 'taken') throw keyTaken(resource, result.key);
        // Gone since it was read: the next read answers 404.
        if (result.outcome !== 'updated') return stale;
        return recordView(result.record, index.size ? index : null);
      }, `The ${resource.title} was changed by another request at the same time; retry.`);
    },
  });
}

function deleteOperation(resource: StudioResource) {
  return defineOperation({
    name: `delete${pascal(resource.kind)}`,
    summary: `Delete a ${resource.title} and everything in it`,
    scope: 'studio:write',
    requestClass: 'write',
    errors: notFound,
    input: studioSchemas[resource.kind].oneInput,
    output: DeletedSchema,
    async run(ctx, input: Input) {
      const record = await loadOwned(ctx, resource.kind, idOf(resource, input));
      if (!(await studioStore(ctx).remove(record.id))) throw new ApiError('NOT_FOUND', `No ${resource.title} with this id.`);
      return { success: true as const, id: record.id };
    },
  });
}

/** move, for the ordered resources: to a position in its parent, or in another of the same project. */
function moveOperation(resource: StudioResource) {
  const moveInput = studioSchemas[resource.kind].moveInput;
  const parent = parentField(resource);
  if (!moveInput || !parent) return null;
  return defineOperation({
    name: `move${pascal(resource.kind)}`,
    summary: `Move a ${resource.title} to a position${resource.parent === 'column' ? ', in its column or another' : ''}`,
    description: `Positions stay 0..n-1 in every ${resource.parent}, whatever moves run at the same time. The target ${resource.parent} must be in the same project.`,
    scope: 'studio:write',
    requestClass: 'write',
    errors: ['NOT_FOUND', 'CONFLICT'],
    input: moveInput,
    output: studioSchemas[resource.kind].view,
    async run(ctx, input: Input) {
      const record = await loadOwned(ctx, resource.kind, idOf(resource, input));
      let parentId = record.parent_id;
      if (typeof input[parent] === 'string' && input[parent] !== record.parent_id) {
        const target = await loadOwned(ctx, resource.parent as StudioKind, input[parent] as string);
        if (target.project_id !== record.project_id) throw new ApiError('NOT_FOUND', `No ${resource.parent} with this id in the project.`);
        parentId = target.id;
      }
      const moved = await studioStore(ctx)
        .move(record.id, parentId, input.position as number, nowIso(ctx), studioLimits)
        .catch((error: unknown) => {
          throw error instanceof StudioParentFull ? parentFull(error.kind) : error;
        });
      if (!moved) throw new ApiError('NOT_FOUND', `No ${resource.title} with this id.`);
      return (await views(ctx, resource, moved.project_id, [moved]))[0];
    },
  });
}

/** Every resource's operations, by kind. */
export const studioOperations = Object.fromEntries(studioKinds.map((kind) => [kind, operationsOf(studioResources[kind])])) as Record<StudioKind, StudioOperations>;
