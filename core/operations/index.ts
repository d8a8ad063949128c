export * from './assets.js';
export * from './batch.js';
export * from './categories.js';
export * from './profile.js';
export * from './submit.js';
export * from './tokens.js';
export * from './uploads.js';
export { checkHealth, type HealthReport } from './health.js';
export type { AnyOperation, Caller, Operation, OperationContext, Ports, Settings } from './context.js';
