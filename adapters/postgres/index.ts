export { postgresStorage, type PostgresStorage, type PostgresStorageOptions } from './postgres-storage.js';
export { PostgresUnavailable, PostgresDriverUnavailable } from './driver.js';
export { schemaVersion } from '../sql/migrations/migrations.js';
export type { MigrationReport } from '../sql/migrations/runner.js';
export { migratePostgres, type PostgresOptions } from './options.js';
export { defaultSchema } from './schema-name.js';
export { postgresStudio, type PostgresStudio, type PostgresStudioOptions } from './studio-storage.js';
export { postgresRateLimiter, rateLimitTable, type PostgresRateLimiter, type PostgresRateLimiterOptions } from './rate-limiter.js';
export { postgresUploadStates } from './upload-state.js';
