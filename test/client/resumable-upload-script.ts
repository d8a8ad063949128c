/**
 * Run by resumable-upload.test.ts in a process of its own (not a test file itself): uploads the file
 * named on the command line with the typed client, remembering the upload in a resume file, and
 * prints each progress report and the confirmation as JSON lines.
 */
import { createClient } from '../../client/index.js';
import { fileResumeStore, fileSource, nodeFetch } from '../../bindings/node/index.js';

const [path, assetId, stateFile] = process.argv.slice(2);
const client = createClient({ baseUrl: process.env.MARKETKIT_URL!, token: process.env.MARKETKIT_API_TOKEN!, fetch: nodeFetch });
const confirmed = await client.uploadFile(assetId!, await fileSource(path!), {
  resumableThreshold: 1,
  chunkSize: 4 * 2 ** 20,
  resumeStore: fileResumeStore(stateFile),
  onProgress: ({ loaded, total }) => console.log(JSON.stringify({ loaded, total })),
});
console.log(JSON.stringify({ confirmed: confirmed.file }));
