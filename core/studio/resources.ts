/**
 * Creator Studio's resources, defined once. Everything else is derived from this table: the
 * storage records (`core/ports/studio.ts`), the operations and REST routes under
 * `/api/v1/studio` (`core/studio/operations.ts`, `core/studio/routes.ts`), the OpenAPI document,
 * the export/import document (`core/studio/transfer.ts`) and the tool names and schemas of the
 * local MCP process (`studioTools` in `core/studio/tools.ts`). docs/studio.md describes the result.
 *
 * A resource is:
 * - `kind`: its name in the domain, singular snake_case (`wiki_page`); tool names use it
 *   (`create_wiki_page`), operations its camelCase form (`createWikiPage`).
 * - `plural`: the path segment (`wiki-pages`) and, in snake_case, the key of the export document.
 * - `parent`: what it lives in. A project lives in an account (its owner); a column in a board; a
 *   card in a column; everything else in a project. Another account's record is a 404, whatever
 *   its depth, because every record carries its project, and a project its owner.
 * - `ordered`: its siblings (same parent) have dense positions 0..n-1, kept by the storage port
 *   in one atomic step on insert, move and remove.
 * - `fields`: the writable fields, each a TypeBox schema; `required` ones must be given on
 *   create, the others take `default`. Update takes any non-empty subset.
 * - `references`: fields that hold ids of other records of the same project (`labels` of a card
 *   are label ids). They must resolve on create, update and import; a reference to a record deleted
 *   later reads as gone (dropped from a list, null for a single id).
 * - `unique`: fields whose value is unique among the resource's records in one project.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Nullable, StringEnum, rule } from '../schemas/common.js';

import type { StudioKind } from '../ports/studio.js';

export type { StudioKind } from '../ports/studio.js';

/** What a resource lives in: its owner account (projects) or a record of another kind. */
export type StudioParent = 'account' | 'project' | 'board' | 'column';

export interface StudioField {
  schema: TSchema;
  required?: boolean;
  /** The value on create when the field is not given (fields that are not required have one). */
  default?: unknown;
}

export interface StudioResource {
  kind: StudioKind;
  /** Path segment: `/studio/{plural}/{id}`. */
  plural: string;
  /** How a person calls it, for summaries and tool titles: `wiki page`. */
  title: string;
  parent: StudioParent;
  ordered: boolean;
  fields: Record<string, StudioField>;
  /** field -> the kind its id (or ids, for an array field) names. */
  references: Record<string, StudioKind>;
  unique: readonly string[];
  /** Most records of this kind one parent may hold (create and import refuse more). */
  maxPerParent: number;
  /** What an assistant reads about it. */
  description: string;
}

// Field shapes, described in words where a pattern cannot say it (`[rule]`, core/schemas/common.ts).
const text = (min: number, max: number, description?: string) => Type.String({ minLength: min, maxLength: max, ...(description ? { description } : {}) });
const longText = (max: number, description?: string) => Nullable(Type.String({ maxLength: max, ...(description ? { description } : {}) }));
const date = (description: string) =>
  Nullable(Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])$', [rule]: 'a date as YYYY-MM-DD', description }));
const id = (description: string) => Type.String({ format: 'uuid', description });
const ids = (max: number, description: string) => Type.Array(Type.String({ format: 'uuid' }), { maxItems: max, uniqueItems: true, description });
const tags = Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20, uniqueItems: true, description: 'At most 20, each 1 to 50 characters.' });

export const studioResources: Record<StudioKind, StudioResource> = {
  project: {
    kind: 'project',
    plural: 'projects',
    title: 'project',
    parent: 'account',
    ordered: false,
    fields: {
      name: { schema: text(1, 200, 'The project name, for example the island it is for.'), required: true },
      description: { schema: longText(10_000), default: null },
    },
    references: {},
    unique: [],
    maxPerParent: 200,
    description: 'A creator project: it holds boards, sprints, wiki pages, code snippets, island codes, milestones and labels.',
  },
  board: {
    kind: 'board',
    plural: 'boards',
    title: 'board',
    parent: 'project',
    ordered: false,
    fields: {
      name: { schema: text(1, 200), required: true },
      description: { schema: longText(10_000), default: null },
    },
    references: {},
    unique: [],
    maxPerParent: 50,
    description: 'A task board of a project, with ordered columns of cards.',
  },
  column: {
    kind: 'column',
    plural: 'columns',
    title: 'column',
    parent: 'board',
    ordered: true,
    fields: {
      name: { schema: text(1, 100, 'For example To do, Doing, Done.'), required: true },
    },
    references: {},
    unique: [],
    maxPerParent: 50,
    description: 'A column of a board; columns are ordered (position 0 first).',
  },
  card: {
    kind: 'card',
    plural: 'cards',
    title: 'card',
    parent: 'column',
    ordered: true,
    fields: {
      title: { schema: text(1, 200), required: true },
      description: { schema: longText(20_000, 'Markdown.'), default: null },
      labels: { schema: ids(20, 'Ids of labels of the same project.'), default: [] },
      assignee: { schema: Nullable(text(1, 100, 'Who does it: a name or username, as the team writes it.')), default: null },
      due_date: { schema: date('When it is due.'), default: null },
    },
    references: { labels: 'label' },
    unique: [],
    maxPerParent: 1000,
    description: 'A task card in a board column; cards are ordered within their column (position 0 on top).',
  },
  sprint: {
    kind: 'sprint',
    plural: 'sprints',
    title: 'sprint',
    parent: 'project',
    ordered: false,
    fields: {
      name: { schema: text(1, 200), required: true },
      goal: { schema: longText(2_000), default: null },
      start_date: { schema: date('The first day.'), default: null },
      end_date: { schema: date('The last day; not before start_date.'), default: null },
      cards: { schema: ids(500, 'Ids of cards of the same project planned for the sprint.'), default: [] },
    },
    references: { cards: 'card' },
    unique: [],
    maxPerParent: 200,
    description: 'A sprint of a project: a time box with a goal and the cards planned for it.',
  },
  wiki_page: {
    kind: 'wiki_page',
    plural: 'wiki-pages',
    title: 'wiki page',
    parent: 'project',
    ordered: false,
    fields: {
      title: { schema: text(1, 200), required: true },
      slug: {
        schema: Type.String({ pattern: '^[a-z0-9-]{1,100}$', [rule]: '1 to 100 lowercase letters, digits and hyphens (^[a-z0-9-]+$)', description: 'Unique within the project: 1 to 100 lowercase letters, digits and hyphens.' }),
        required: true,
      },
      body: { schema: Type.String({ maxLength: 100_000, description: 'Markdown.' }), default: '' },
      parent_page_id: { schema: Nullable(id('The page this one sits under, or null for a top-level page.')), default: null },
    },
    references: { parent_page_id: 'wiki_page' },
    unique: ['slug'],
    maxPerParent: 1000,
    description: 'A wiki page of a project (markdown), optionally under a parent page.',
  },
  snippet: {
    kind: 'snippet',
    plural: 'snippets',
    title: 'code snippet',
    parent: 'project',
    ordered: false,
    fields: {
      title: { schema: text(1, 200), required: true },
      language: { schema: text(1, 50, 'For example Verse, Python, TypeScript.'), required: true },
      code: { schema: Type.String({ maxLength: 100_000 }), required: true },
      tags: { schema: tags, default: [] },
    },
    references: {},
    unique: [],
    maxPerParent: 1000,
    description: 'A code snippet of a project (for example Verse).',
  },
  island_code: {
    kind: 'island_code',
    plural: 'island-codes',
    title: 'island code',
    parent: 'project',
    ordered: false,
    fields: {
      code: { schema: Type.String({ pattern: '^\\d{4}-\\d{4}-\\d{4}$', [rule]: 'an island code of the form NNNN-NNNN-NNNN', description: 'The island code, NNNN-NNNN-NNNN.' }), required: true },
      name: { schema: text(1, 200), required: true },
      version: { schema: Nullable(text(1, 50)), default: null },
      notes: { schema: longText(10_000), default: null },
    },
    references: {},
    unique: [],
    maxPerParent: 200,
    description: 'A published island code (NNNN-NNNN-NNNN) of a project, with its name, version and notes.',
  },
  milestone: {
    kind: 'milestone',
    plural: 'milestones',
    title: 'milestone',
    parent: 'project',
    ordered: false,
    fields: {
      title: { schema: text(1, 200), required: true },
      due_date: { schema: date('When it is due.'), default: null },
      status: { schema: StringEnum(['planned', 'in_progress', 'done'] as const), default: 'planned' },
    },
    references: {},
    unique: [],
    maxPerParent: 200,
    description: 'A milestone of a project: a title, a due date and a status (planned, in_progress, done).',
  },
  label: {
    kind: 'label',
    plural: 'labels',
    title: 'label',
    parent: 'project',
    ordered: false,
    fields: {
      name: { schema: text(1, 50), required: true },
      colour: { schema: Type.String({ pattern: '^#[0-9a-fA-F]{6}$', [rule]: 'a colour as #rrggbb', description: 'A colour as #rrggbb.' }), default: '#808080' },
    },
    references: {},
    unique: ['name'],
    maxPerParent: 100,
    description: 'A label of a project, put on cards.',
  },
};

/** Every kind, in the order documents and tables list them (a parent before its children). */
export const studioKinds: readonly StudioKind[] = ['project', 'board', 'column', 'card', 'sprint', 'wiki_page', 'snippet', 'island_code', 'milestone', 'label'];

/** The field of a record's wire form that names its parent (`board_id` for a column); null for projects. */
export function parentField(resource: StudioResource): string | null {
  return resource.parent === 'account' ? null : `${resource.parent}_id`;
}

/** `wiki_page` -> `WikiPage`, for operation names (`createWikiPage`). */
export function pascal(kind: string): string {
  return kind.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}

/** `wiki-pages` -> `wiki_pages`: the key of a kind in the export document, and the plural in tool names. */
export function pluralKey(resource: StudioResource): string {
  return resource.plural.replace(/-/g, '_');
}
