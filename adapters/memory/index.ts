export { memoryStorage } from './storage.js';
export { memoryBlobs } from './blobs.js';
export { manualClock, type ManualClock } from './clock.js';
