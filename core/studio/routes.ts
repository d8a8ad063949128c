/**
 * The REST rows of Creator Studio, derived from the resource table: for a resource under a
 * parent, `GET|POST /studio/{parent plural}/:id/{plural}` lists and creates, and
 * `GET|PATCH|DELETE /studio/{plural}/:id` reads, changes and deletes; ordered resources add
 * `POST /studio/{plural}/:id/move`. Projects are listed and created at `/studio/projects`.
 */
import type { RestRoute } from '../pipeline/route.js';
import { studioOperations } from './operations.js';
import { parentField, studioKinds, studioResources } from './resources.js';
import { idField } from './schemas.js';
import { exportProject, importProject } from './transfer.js';

function routesOf(kind: (typeof studioKinds)[number]): RestRoute[] {
  const resource = studioResources[kind];
  const ops = studioOperations[kind];
  const parent = parentField(resource);
  const collection = parent ? `/studio/${studioResources[resource.parent as typeof kind].plural}/:id/${resource.plural}` : `/studio/${resource.plural}`;
  const collectionParams: Record<string, string> = parent ? { id: parent } : {};
  const one = `/studio/${resource.plural}/:id`;
  const oneParams = { id: idField(resource) };
  const rows: RestRoute[] = [
    { method: 'GET', path: collection, operation: ops.list, params: collectionParams, tag: 'Studio' },
    { method: 'POST', path: collection, operation: ops.create, params: collectionParams, status: 201, tag: 'Studio' },
    { method: 'GET', path: one, operation: ops.get, params: oneParams, tag: 'Studio' },
    { method: 'PATCH', path: one, operation: ops.update, params: oneParams, tag: 'Studio' },
    { method: 'DELETE', path: one, operation: ops.delete, params: oneParams, tag: 'Studio' },
  ];
  if (ops.move) rows.push({ method: 'POST', path: `${one}/move`, operation: ops.move, params: oneParams, tag: 'Studio' });
  return rows;
}

/** Every Creator Studio endpoint under /api/v1 (docs/studio.md). */
export const studioRoutes: readonly RestRoute[] = [
  ...studioKinds.flatMap(routesOf),
  { method: 'GET', path: '/studio/projects/:id/export', operation: exportProject, params: { id: 'project_id' }, tag: 'Studio' },
  { method: 'POST', path: '/studio/import', operation: importProject, status: 201, tag: 'Studio' },
];
