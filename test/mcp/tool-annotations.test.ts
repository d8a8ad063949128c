import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { developerOperations } from '../../core/operations/index.js';
import { callToolIn, mcpEras, modernParams, rpc } from '../fixtures/mcp.js';
import { as, assetWithFile, putSigned, pngBytes, startServer, validAsset, type TestServer } from '../fixtures/server.js';

// Each hosted tool's annotations, title and output schema, held to what its operation declares and
// to what its calls do: a read changes nothing, an idempotent tool's repeat changes nothing more,
// a tool that is not destructive only adds, and the tools are the same in both protocol eras.

let server: TestServer;

before(async () => {
  server = await startServer();
});

after(async () => {
  await server.close();
});

async function listed(era: 'legacy' | 'modern') {
  const answer = await rpc(server, 'tools/list', era === 'modern' ? modernParams() : undefined);
  assert.equal(answer.status, 200);
  return answer.body.result.tools as any[];
}

test('tools/list lists the same tools, in the same order, with the same schemas, on 2025-11-25 and 2026-07-28', async () => {
  const [legacy, modern] = [await listed('legacy'), await listed('modern')];
  assert.deepEqual(modern, legacy);
});

test('every tool has a title, all four annotations, and an output schema for its structured result', async () => {
  const operations = new Map(developerOperations.flatMap((operation) => (operation.tool ? [[operation.tool.name, operation] as const] : [])));
  for (const tool of await listed('legacy')) {
    assert.ok(typeof tool.title === 'string' && tool.title.length > 3, `${tool.name}: title`);
    assert.deepEqual(Object.keys(tool.annotations).sort(), ['destructiveHint', 'idempotentHint', 'openWorldHint', 'readOnlyHint'], tool.name);
    assert.equal(tool.annotations.openWorldHint, false, `${tool.name}: acts on this marketplace only`);
    assert.equal(tool.outputSchema?.type, 'object', `${tool.name}: outputSchema`);
    const operation = operations.get(tool.name);
    if (!operation) continue; // health_check: no operation, a read.
    assert.deepEqual(tool.annotations, operation.tool!.annotations, `${tool.name}: as its operation declares`);
    // What HTTP says of the operation's REST method holds for its tool too.
    const { method } = operation.rest!;
    assert.equal(tool.annotations.readOnlyHint, method === 'GET', `${tool.name}: read-only exactly when its REST twin is a GET`);
    if (method === 'PATCH' || method === 'DELETE') assert.ok(tool.annotations.destructiveHint && tool.annotations.idempotentHint, `${tool.name}: ${method} overwrites or removes, and its repeat does nothing more`);
  }
});

/** What a seller can see of their marketplace state: profile, listings by status, and each listing known to the test. */
async function snapshot(ids: Set<string>) {
  const client = as(server, server.seller.token);
  const listings: Record<string, unknown> = {};
  const versions: Record<string, unknown> = {};
  for (const id of [...ids].sort()) {
    listings[id] = (await client.get(`/assets/${id}`)).body;
    // A published listing's versions are what the version tools change.
    if ((listings[id] as { status?: string }).status === 'published') versions[id] = (await client.get(`/assets/${id}/versions`)).body.items;
  }
  return { profile: (await client.get('/me')).body, counts: (await client.get('/assets/counts')).body, listings, versions };
}

/** `after` keeps everything `before` had (a value set stays set to the same; an array keeps each element), but the server's bookkeeping. */
function onlyAdds(before: unknown, after: unknown, path = ''): string[] {
  if (before === null || before === undefined) return [];
  if (/(_at|\.status)$|^counts/.test(path)) return [];
  if (Array.isArray(before)) {
    if (!Array.isArray(after)) return [`${path} is gone`];
    return before.flatMap((item, index) => (after.some((other) => onlyAdds(item, other, path).length === 0) ? [] : [`${path}[${index}] is gone`]));
  }
  if (typeof before === 'object') {
    if (typeof after !== 'object' || after === null) return [`${path} is gone`];
    return Object.entries(before).flatMap(([key, value]) => onlyAdds(value, (after as Record<string, unknown>)[key], path ? `${path}.${key}` : key));
  }
  return before === after ? [] : [`${path}: ${JSON.stringify(before)} became ${JSON.stringify(after)}`];
}

/** A draft listing of the seller's, made over REST. */
async function draft(): Promise<string> {
  return (await as(server, server.seller.token).post('/assets', validAsset())).body.id;
}

/** A published listing of the seller's (approved by the marketplace's moderation). */
async function published(): Promise<string> {
  const { id } = await assetWithFile(server, server.seller.token);
  await as(server, server.seller.token).post(`/assets/${id}/submit`);
  await server.marketplace.moderation.approve(id);
  return id;
}

let versionStrings = 0;
/** A published listing with a draft version (its file confirmed when `withFile`): both ids. */
async function withVersion(withFile = false): Promise<{ id: string; vid: string }> {
  const id = await published();
  const client = as(server, server.seller.token);
  const vid = (await client.post(`/assets/${id}/versions`, { version: `1.${++versionStrings}.0` })).body.id;
  if (withFile) await versionFile(id, vid, 'PK\u0003\u0004 the version file');
  return { id, vid };
}

/** Uploads `text` as the version's file; confirmed unless `confirm` is false (then the confirm-file arguments). */
async function versionFile(id: string, vid: string, text: string, confirm = true) {
  const client = as(server, server.seller.token);
  const issued = (await client.post(`/assets/${id}/versions/${vid}/upload-url`, { filename: 'next.zip' })).body;
  const bytes = new TextEncoder().encode(text);
  assert.equal((await putSigned(issued.signed_url, bytes, 'application/zip')).status, 200);
  const body = { storage_path: issued.storage_path, file_size: bytes.byteLength };
  const args = { asset_id: id, version_id: vid, ...body };
  if (confirm) {
    const confirmed = await client.post(`/assets/${id}/versions/${vid}/confirm-file`, body);
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  }
  return args;
}

/** The arguments of each write tool's call, on a listing made for it, and whether the call is meant to succeed the first time. */
const writeCalls: Record<string, () => Promise<{ args: Record<string, unknown>; ids: string[] }>> = {
  create_asset: async () => ({ args: validAsset(), ids: [] }),
  update_asset: async () => {
    const id = await draft();
    return { args: { asset_id: id, title: 'Renamed For The Check' }, ids: [id] };
  },
  delete_asset: async () => {
    const id = await draft();
    return { args: { asset_id: id }, ids: [id] };
  },
  get_asset_upload_url: async () => {
    const id = await draft();
    return { args: { asset_id: id, filename: 'pack.zip' }, ids: [id] };
  },
  confirm_asset_file: async () => {
    const { id } = await assetWithFile(server, server.seller.token);
    const issued = (await as(server, server.seller.token).post(`/assets/${id}/upload-url`, { filename: 'v2.zip' })).body;
    const bytes = new TextEncoder().encode('PK\u0003\u0004 the second file');
    assert.equal((await putSigned(issued.signed_url, bytes, 'application/zip')).status, 200);
    return { args: { asset_id: id, storage_path: issued.storage_path, file_size: bytes.byteLength }, ids: [id] };
  },
  get_image_upload_url: async () => {
    const id = await draft();
    return { args: { asset_id: id, filename: 'shot.png' }, ids: [id] };
  },
  confirm_image: async () => {
    const id = await draft();
    const issued = (await as(server, server.seller.token).post(`/assets/${id}/images/upload-url`, { filename: 'shot.png' })).body;
    assert.equal((await putSigned(issued.signed_url, pngBytes, 'image/png')).status, 200);
    return { args: { asset_id: id, public_url: issued.public_url }, ids: [id] };
  },
  arrange_images: async () => {
    const id = await draft();
    const images: string[] = [];
    for (let i = 0; i < 2; i++) {
      const issued = (await as(server, server.seller.token).post(`/assets/${id}/images/upload-url`, { filename: 'shot.png' })).body;
      assert.equal((await putSigned(issued.signed_url, pngBytes, 'image/png')).status, 200);
      images.push((await as(server, server.seller.token).post(`/assets/${id}/confirm-image`, { public_url: issued.public_url })).body.id);
    }
    return { args: { asset_id: id, image_ids: images.reverse() }, ids: [id] };
  },
  submit_asset: async () => {
    const { id } = await assetWithFile(server, server.seller.token);
    return { args: { asset_id: id }, ids: [id] };
  },
  create_asset_version: async () => {
    const id = await published();
    return { args: { asset_id: id, version: '2.0.0', release_notes: 'New maps' }, ids: [id] };
  },
  update_asset_version: async () => {
    const { id, vid } = await withVersion();
    return { args: { asset_id: id, version_id: vid, release_notes: 'Changed notes' }, ids: [id] };
  },
  get_version_upload_url: async () => {
    const { id, vid } = await withVersion();
    return { args: { asset_id: id, version_id: vid, filename: 'next.zip' }, ids: [id] };
  },
  confirm_version_file: async () => {
    const { id, vid } = await withVersion(true);
    return { args: await versionFile(id, vid, 'PK\u0003\u0004 a second version file', false), ids: [id] };
  },
  get_version_image_upload_url: async () => {
    const { id, vid } = await withVersion();
    return { args: { asset_id: id, version_id: vid, filename: 'shot.png' }, ids: [id] };
  },
  confirm_version_image: async () => {
    const { id, vid } = await withVersion();
    const issued = (await as(server, server.seller.token).post(`/assets/${id}/versions/${vid}/images/upload-url`, { filename: 'shot.png' })).body;
    assert.equal((await putSigned(issued.signed_url, pngBytes, 'image/png')).status, 200);
    return { args: { asset_id: id, version_id: vid, public_url: issued.public_url }, ids: [id] };
  },
  delete_version_image: async () => {
    const { id, vid } = await withVersion();
    const client = as(server, server.seller.token);
    const issued = (await client.post(`/assets/${id}/versions/${vid}/images/upload-url`, { filename: 'shot.png' })).body;
    assert.equal((await putSigned(issued.signed_url, pngBytes, 'image/png')).status, 200);
    const image = (await client.post(`/assets/${id}/versions/${vid}/confirm-image`, { public_url: issued.public_url })).body;
    return { args: { asset_id: id, version_id: vid, image_id: image.id }, ids: [id] };
  },
  arrange_version_images: async () => {
    const { id, vid } = await withVersion();
    const client = as(server, server.seller.token);
    const images: string[] = [];
    for (let i = 0; i < 2; i++) {
      const issued = (await client.post(`/assets/${id}/versions/${vid}/images/upload-url`, { filename: 'shot.png' })).body;
      assert.equal((await putSigned(issued.signed_url, pngBytes, 'image/png')).status, 200);
      images.push((await client.post(`/assets/${id}/versions/${vid}/confirm-image`, { public_url: issued.public_url })).body.id);
    }
    return { args: { asset_id: id, version_id: vid, image_ids: images.reverse() }, ids: [id] };
  },
  submit_asset_version: async () => {
    const { id, vid } = await withVersion(true);
    return { args: { asset_id: id, version_id: vid }, ids: [id] };
  },
  withdraw_asset_version: async () => {
    const { id, vid } = await withVersion(true);
    return { args: { asset_id: id, version_id: vid }, ids: [id] };
  },
};

/** Whether a tool's structuredContent is what its outputSchema admits (as the TypeScript SDK checks). */
function matchesOutputSchema(tool: { name: string; outputSchema: object }, content: unknown): void {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  const validate = ajv.compile(tool.outputSchema);
  assert.ok(validate(content), `${tool.name}: structuredContent against outputSchema: ${ajv.errorsText(validate.errors)}`);
}

test('each tool does what its annotations say: reads change nothing, idempotent repeats nothing more, non-destructive tools only add; results match the output schema', async () => {
  const tools = await listed('legacy');
  assert.deepEqual(tools.filter((tool) => !tool.annotations.readOnlyHint).map((tool) => tool.name).sort(), Object.keys(writeCalls).sort(), 'a call for every write tool');
  for (const tool of tools) {
    const { readOnlyHint, destructiveHint, idempotentHint } = tool.annotations;
    const { args, ids } = readOnlyHint ? await readArgs(tool.name) : await writeCalls[tool.name]!();
    const known = new Set(ids);
    const before = await snapshot(known);
    const first = (await callToolIn('legacy', server, server.seller.token, tool.name, args)).body.result;
    assert.notEqual(first.isError, true, `${tool.name}: ${JSON.stringify(first.structuredContent)}`);
    // A listing the call made is watched from then on.
    if (!readOnlyHint && typeof first.structuredContent.slug === 'string') known.add(first.structuredContent.id);
    const once = await snapshot(known);
    const second = (await callToolIn('legacy', server, server.seller.token, tool.name, args)).body.result;
    const twice = await snapshot(known);
    matchesOutputSchema(tool, first.structuredContent);
    matchesOutputSchema(tool, second.structuredContent);
    if (readOnlyHint) assert.deepEqual(twice, before, `${tool.name} is read-only: nothing changed`);
    if (idempotentHint) assert.deepEqual(twice, once, `${tool.name} is idempotent: the repeat changed nothing more`);
    else {
      // An upload URL's effect is the upload it opens, which no listing shows until it is confirmed.
      const anotherUpload = typeof first.structuredContent.storage_path === 'string' && second.structuredContent.storage_path !== first.structuredContent.storage_path;
      assert.ok(anotherUpload || !isDeepStrictEqual(twice, once), `${tool.name} is not idempotent: the repeat did something more`);
    }
    const lost = onlyAdds(before, once);
    if (destructiveHint) assert.notDeepEqual(lost, [], `${tool.name} is destructive: it overwrote or removed something`);
    else assert.deepEqual(lost, [], `${tool.name} is not destructive: it only added`);
  }
});

/** Arguments for a read tool, and the listings it reads. */
async function readArgs(name: string): Promise<{ args: Record<string, unknown>; ids: string[] }> {
  if (name === 'list_asset_versions' || name === 'get_asset_version') {
    const { id, vid } = await withVersion(true);
    return { args: name === 'get_asset_version' ? { asset_id: id, version_id: vid } : { asset_id: id }, ids: [id] };
  }
  const id = await draft();
  return { args: name === 'get_asset' ? { asset_id: id } : {}, ids: [id] };
}

test('a tool call answers the same in both eras', async () => {
  const { id } = await assetWithFile(server, server.seller.token);
  const [legacy, modern] = await Promise.all(mcpEras.map((era) => callToolIn(era, server, server.seller.token, 'get_asset', { asset_id: id })));
  const { resultType, _meta, ...modernResult } = modern!.body.result;
  assert.equal(resultType, 'complete');
  assert.deepEqual(modernResult, legacy!.body.result);
});
