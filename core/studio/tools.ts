/**
 * Creator Studio as MCP tools, for the local MCP process (the hosted endpoint keeps exactly the
 * spec's tools). Derived from the same rows as REST: one tool per studio route, its arguments its
 * operation's input, sent as that route's request (core/pipeline/tool.ts, `routeTool`).
 */
import type { Method } from '../pipeline/router.js';
import { routeTool, type Tool } from '../pipeline/tool.js';
import { pluralKey, studioResources, type StudioKind } from './resources.js';
import { studioRoutes } from './routes.js';

/** A studio tool is a tool like any other (core/pipeline/tool.ts): `create_card`, `move_card`, `export_project`. */
export type StudioTool = Tool;

const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const annotationsOf = (method: Method, name: string) => ({
  readOnlyHint: method === 'GET',
  destructiveHint: method === 'DELETE' || method === 'PATCH',
  idempotentHint: method !== 'POST' || name.startsWith('move_'),
  openWorldHint: false,
});

/** One tool per studio endpoint, named after its operation in snake_case. */
export const studioTools: readonly Tool[] = studioRoutes.map((route) => {
  const name = snake(route.operation.name);
  const kind = (Object.keys(studioResources) as StudioKind[]).find((k) => name.endsWith(`_${k}`) || name.endsWith(`_${pluralKey(studioResources[k])}`));
  return routeTool(route, {
    name,
    title: route.operation.summary,
    description: [route.operation.summary + '.', route.operation.description, kind && !route.operation.description?.includes(studioResources[kind].description) ? studioResources[kind].description : '']
      .filter(Boolean)
      .join(' '),
    annotations: annotationsOf(route.method, name),
  });
});
