export * from './asset.js';
export * from './common.js';
export * from './health.js';
export * from './profile.js';
export * from './token.js';
export * from './upload.js';
export * from './webhook.js';
