/** The core's own in-memory upload state, the default of createMarketplace: exported here with the other memory adapters. */
export { memoryUploadStates } from '../../core/uploads/memory-upload-states.js';
