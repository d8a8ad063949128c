export { sqliteStorage, type SqliteStorage, type SqliteStorageOptions } from './sqlite-storage.js';
export type { SqliteDriverName } from './drivers/driver.js';
export { schemaVersion } from '../sql/migrations/migrations.js';
export { sqliteRateLimiter, type SqliteRateLimiter } from './rate-limiter.js';
export { sqliteStudio, type SqliteStudio, type SqliteStudioOptions } from './studio-storage.js';
export { sqliteUploadStates } from './upload-state.js';
