export { s3Blobs, type S3Blobs, type S3BlobsOptions, type S3Settings } from './s3-blobs.js';
export { S3RequestError } from './s3-client.js';
export { resumablePartBytes, s3MaxParts, s3MaxSinglePutBytes } from './s3-resumable.js';
