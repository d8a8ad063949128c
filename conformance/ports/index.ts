export { runStorageSuite, type StorageGroup, type StorageSuiteOptions } from './storage.suite.js';
export { runLeaseSuite, type LeaseSuiteOptions } from './leases.suite.js';
export { runBlobSuite, patternBytes, type BlobGroup, type BlobSuiteOptions } from './blobs.suite.js';
export type { SuiteOptions, TestFunction } from './suite.js';
export { runStudioSuite, type StudioGroup, type StudioSuiteOptions } from './studio.suite.js';
export { runRateLimitSuite, rateLimitSuiteLimits, type RateLimitGroup, type RateLimitSuiteOptions, type RateLimiterPeer } from './rate-limit.suite.js';
