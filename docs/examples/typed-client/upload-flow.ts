/**
 * A client typed from the OpenAPI document: `marketkit-api.d.ts` is what
 * `npx openapi-typescript http://127.0.0.1:8787/api/v1/openapi.json -o marketkit-api.d.ts` writes.
 * The tests regenerate it, check it is current, type-check this file and run it against a server.
 *
 * Run: MARKETKIT_URL=http://127.0.0.1:8787 MARKETKIT_TOKEN=smcp_... npx tsx docs/examples/typed-client/upload-flow.ts
 */
import type { operations } from './marketkit-api.js';

type Json<O extends keyof operations, S extends number> = operations[O]['responses'] extends Record<S, { content: { 'application/json': infer B } }> ? B : never;
type Body<O extends keyof operations> = operations[O] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

export function client(siteUrl: string, token: string) {
  const api = `${siteUrl}/api/v1`;
  async function send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await response.json()) as T & { code?: string; error?: string };
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${json.code}: ${json.error}`);
    return json;
  }
  return {
    createAsset: (body: Body<'createAsset'>) => send<Json<'createAsset', 201>>('POST', '/assets', body),
    uploadUrl: (id: string, body: Body<'createAssetUploadUrl'>) => send<Json<'createAssetUploadUrl', 200>>('POST', `/assets/${id}/upload-url`, body),
    confirmFile: (id: string, body: Body<'confirmAssetFile'>) => send<Json<'confirmAssetFile', 200>>('POST', `/assets/${id}/confirm-file`, body),
    imageUploadUrl: (id: string, body: Body<'createImageUploadUrl'>) => send<Json<'createImageUploadUrl', 200>>('POST', `/assets/${id}/images/upload-url`, body),
    confirmImage: (id: string, body: Body<'confirmAssetImage'>) => send<Json<'confirmAssetImage', 201>>('POST', `/assets/${id}/confirm-image`, body),
    submit: (id: string) => send<Json<'submitAsset', 200>>('POST', `/assets/${id}/submit`),
    getAsset: (id: string) => send<Json<'getAsset', 200>>('GET', `/assets/${id}`),
  };
}

/** PUT to a signed URL: no Authorization header. */
async function put(url: string, bytes: Uint8Array, contentType: string): Promise<void> {
  const response = await fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, body: bytes as BodyInit });
  if (!response.ok) throw new Error(`PUT: ${response.status} ${await response.text()}`);
}

/** The whole flow: create, file, image, submit. Returns the listing as read back at the end. */
export async function uploadFlow(siteUrl: string, token: string, file: Uint8Array, image: Uint8Array, slug: string) {
  const api = client(siteUrl, token);
  const asset = await api.createAsset({ title: 'Typed Pack', slug, tags: ['typed'] });
  const upload = await api.uploadUrl(asset.id, { filename: 'typed.zip' });
  await put(upload.signed_url, file, 'application/zip');
  await api.confirmFile(asset.id, { storage_path: upload.storage_path, file_size: file.byteLength });
  const shot = await api.imageUploadUrl(asset.id, { filename: 'cover.webp' });
  await put(shot.signed_url, image, 'image/webp');
  const confirmed = await api.confirmImage(asset.id, { public_url: shot.public_url });
  const submitted = await api.submit(asset.id);
  return { submitted, confirmed, asset: await api.getAsset(asset.id) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { MARKETKIT_URL: url, MARKETKIT_TOKEN: token } = process.env;
  if (!url || !token) throw new Error('set MARKETKIT_URL and MARKETKIT_TOKEN');
  const webp = new Uint8Array([82, 73, 70, 70, 26, 0, 0, 0, 87, 69, 66, 80, 86, 80, 56, 32]);
  const result = await uploadFlow(url, token, new TextEncoder().encode('zip bytes'), webp, `typed-${Date.now()}`);
  console.log(`listing ${result.asset.id} is ${result.submitted.status}`);
}
