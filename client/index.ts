export { createClient, contentTypeOf, type MarketKitClient, type UploadOptions } from './client.js';
export { MarketKitError, isMarketKitError, type MarketKitErrorDetail } from './errors.js';
export { apiBaseOf, type ClientOptions, type Credential } from './http.js';
export type { RetryOptions } from './retry.js';
export { exchangedSession, type ExchangedSession, type ExchangedSessionOptions } from './session.js';
export type { SizedSource, UploadProgress, UploadSource } from './upload.js';
export type * from './types.js';
export type { CallOptions, OperationInput, OperationMethods, OperationName, OperationOutput } from './operation-methods.js';
export type { IncrementalHash, RandomAccessSource, ResumeEntry, ResumeStore } from './resumable.js';
