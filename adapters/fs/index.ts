export { fsBlobs, type FsBlobsOptions } from './fs-blobs.js';
