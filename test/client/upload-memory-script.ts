/**
 * Run by upload-memory.test.ts in a process of its own (not a test file itself): uploads the file
 * named on the command line with the typed client and prints how far the process's memory grew.
 */
import { createClient } from '../../client/index.js';
import { fileSource, nodeFetch } from '../../bindings/node/index.js';

const [path, assetId] = process.argv.slice(2);
const client = createClient({ baseUrl: process.env.MARKETKIT_URL!, token: process.env.MARKETKIT_API_TOKEN!, fetch: nodeFetch });
const before = process.memoryUsage().rss;
const confirmed = await client.uploadFile(assetId!, await fileSource(path!));
const peak = process.resourceUsage().maxRSS * 1024;
console.log(JSON.stringify({ file_size: confirmed.file.file_size, growth_bytes: peak - before }));
