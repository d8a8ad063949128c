/** An imported document checked whole before anything is stored: its shape, then what a schema cannot see. */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { ApiError, invalidInput } from '../errors.js';
import type { StudioRecord } from '../ports/studio.js';
import { Strict, Timestamp } from '../schemas/common.js';
import { validate } from '../validation.js';
import { children, itemSchema, maxDocumentRecords, studioDocumentFormat, studioDocumentVersion, type Document, type Item } from './document.js';
import { checkData } from './record-rules.js';
import { parentField, pluralKey, studioKinds, studioResources, type StudioKind } from './resources.js';
import type { Slicer } from './slicer.js';

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
export async function validateDocument(raw: Record<string, unknown>, slicer: Slicer): Promise<Document> {
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
export async function checkDocument(document: Document, slicer: Slicer): Promise<void> {
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
