/**
 * A listing from a file on disk with the typed client: create, upload the file and an image
 * (streamed, with progress), submit. The tests run this file against a server.
 *
 * In your project the imports are `marketkit/client` and `marketkit/bindings/node`; this copy
 * imports the repository's sources so that its test runs it as it is.
 *
 * Run: MARKETKIT_URL=http://127.0.0.1:8787 MARKETKIT_API_TOKEN=smcp_... npx tsx docs/examples/client-upload.ts ./pack.zip ./shot.png
 */
import { createClient, exchangedSession, MarketKitError } from '../../client/index.js';
import { fileSource, nodeFetch } from '../../bindings/node/index.js';

const [filePath, imagePath] = process.argv.slice(2);
const baseUrl = process.env.MARKETKIT_URL ?? 'http://127.0.0.1:8787';
// The developer token is exchanged for short-lived sessions, renewed before they expire.
// nodeFetch streams the upload with backpressure (Node's own fetch holds the whole body in memory).
const token = exchangedSession({ baseUrl, developerToken: process.env.MARKETKIT_API_TOKEN!, fetch: nodeFetch });
const client = createClient({ baseUrl, token, fetch: nodeFetch });

try {
  const asset = await client.createAsset({ title: 'Neon Signs Pack', slug: `neon-signs-${Date.now()}`, pricing_type: 'free', tags: ['neon'] });
  const file = await client.uploadFile(asset.id, await fileSource(filePath!), {
    onProgress: ({ loaded, total }) => console.error(`file: ${loaded} of ${total} bytes`),
  });
  if (imagePath) await client.uploadImage(asset.id, await fileSource(imagePath));
  const submitted = await client.submitAsset(asset.id);
  console.log(JSON.stringify({ id: asset.id, file_size: file.file.file_size, status: submitted.status }));
} catch (error) {
  if (!(error instanceof MarketKitError)) throw error;
  // One error class: the HTTP status, the API's code, and the field it named.
  console.error(`${error.status} ${error.code}${error.field ? ` (${error.field})` : ''}: ${error.message}`);
  process.exitCode = 1;
}
