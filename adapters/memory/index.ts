export { memoryStorage, type MemoryStorage, type MemoryStorageSnapshot } from './storage.js';
export { memoryBlobs, type MemoryBlobs, type MemoryBlobsSnapshot } from './blobs.js';
export { manualClock, type ManualClock } from './clock.js';
export { memoryStudio } from './studio.js';
export { memoryUploadStates } from './upload-state.js';
