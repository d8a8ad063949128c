export { studioResources, studioKinds, parentField, type StudioKind, type StudioResource, type StudioField, type StudioParent } from './resources.js';
export { studioOperations, type StudioOperations } from './operations.js';
export { studioRoutes } from './routes.js';
export { studioTools, type StudioTool } from './tools.js';
export { studioSchemas } from './schemas.js';
export { StudioDocumentSchema, studioDocumentFormat, studioDocumentVersion, maxDocumentRecords, exportProject, importProject } from './transfer.js';
export type { StudioRecord, StudioStoragePort, StudioUpdateResult } from '../ports/studio.js';
