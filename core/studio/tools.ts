/**
 * Creator Studio as MCP tools, for the local MCP process (the hosted endpoint keeps exactly the
 * spec's tools). Derived from the same rows as REST: a tool's arguments are its operation's
 * input, and `rest` says which request carries them (path parameters filled from the named
 * arguments, the rest as the JSON body, or nothing for GET and DELETE).
 */
import type { TSchema } from '@sinclair/typebox';
import type { AnyOperation } from '../operations/context.js';
import type { Method } from '../http/routes.js';
import { pluralKey, studioResources, type StudioKind } from './resources.js';
import { studioRoutes } from './routes.js';

export interface StudioTool {
  /** `create_card`, `move_card`, `list_wiki_pages`, `export_project`. */
  name: string;
  title: string;
  description: string;
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  input: TSchema;
  output: TSchema;
  operation: AnyOperation;
  /** The REST request: `path` is under /api/v1 with `:id` taken from the argument `params.id`. */
  rest: { method: Method; path: string; params: Record<string, string> };
}

const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const annotationsOf = (method: Method, name: string) => ({
  readOnlyHint: method === 'GET',
  destructiveHint: method === 'DELETE' || method === 'PATCH',
  idempotentHint: method !== 'POST' || name.startsWith('move_'),
  openWorldHint: false,
});

/** One tool per studio endpoint, named after its operation in snake_case. */
export const studioTools: readonly StudioTool[] = studioRoutes.map((route) => {
  const name = snake(route.operation.name);
  const kind = (Object.keys(studioResources) as StudioKind[]).find((k) => name.endsWith(`_${k}`) || name.endsWith(`_${pluralKey(studioResources[k])}`));
  return {
    name,
    title: route.operation.summary,
    description: [route.operation.summary + '.', route.operation.description, kind && !route.operation.description?.includes(studioResources[kind].description) ? studioResources[kind].description : '']
      .filter(Boolean)
      .join(' '),
    annotations: annotationsOf(route.method, name),
    input: route.operation.input,
    output: route.operation.output,
    operation: route.operation,
    rest: { method: route.method, path: `/api/v1${route.path}`, params: route.params ?? {} },
  };
});
