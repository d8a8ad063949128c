/**
 * The suite must fail a broken server. Each mutant wraps our server's handler and breaks one rule
 * of the contract; the suite, run against it, must fail and name that rule's requirement.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConformance } from '../../conformance/index.js';
import { blobRoutePrefix, storagePathOf } from '../../core/operations/blob-urls.js';
import { jsonResponse, type CoreRequest, type CoreResponse } from '../../core/pipeline/request.js';
import { rateLimitProbe, startCertifiedServer, type Mutant } from './harness.js';

const pathOf = (request: CoreRequest) => request.target.split('?', 1)[0]!;

async function bodyOf(response: CoreResponse): Promise<any> {
  if (typeof response.body === 'string') return JSON.parse(response.body);
  throw new Error('expected a JSON string body');
}

/** Reads a request's body so that it can be both inspected and replayed. */
async function buffered(request: CoreRequest): Promise<{ request: CoreRequest; bytes: Uint8Array }> {
  const chunks: Uint8Array[] = [];
  if (request.body) for await (const chunk of request.body) chunks.push(chunk);
  const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  const body = request.body ? (async function* () { yield bytes; })() : null;
  // Field by field: a binding's request may keep `header` on its prototype, which a spread drops.
  const copy: CoreRequest = { method: request.method, target: request.target, header: (name) => request.header(name), body };
  for (const key of ['origin', 'basePath', 'loopback', 'clientAddress'] as const) if (request[key] !== undefined) Object.assign(copy, { [key]: request[key] });
  return { request: copy, bytes };
}

/** Answers with the real response, or with `change(real, body)` when it returns one. */
function rewrite(matches: (request: CoreRequest) => boolean, change: (response: CoreResponse, body: any, request: CoreRequest) => CoreResponse | null): Mutant {
  return async (request, real) => {
    const response = await real(request);
    if (!matches(request) || typeof response.body !== 'string' || !response.body.startsWith('{')) return response;
    return change(response, await bodyOf(response), request) ?? response;
  };
}

/** A PUT to a signed URL that the real server refused for `reason`, stored anyway. */
function acceptRefusedPut(reason: RegExp): Mutant {
  return async (incoming, real, marketplace) => {
    if (incoming.method !== 'PUT' || !pathOf(incoming).startsWith(blobRoutePrefix)) return real(incoming);
    const { request, bytes } = await buffered(incoming);
    const response = await real(request);
    if (response.status !== 403 || !reason.test(String(response.body))) return response;
    const path = storagePathOf(pathOf(request).slice(blobRoutePrefix.length))!;
    await marketplace.ports.blobs.put(path, (async function* () { yield bytes; })(), { contentType: request.header('content-type') ?? 'application/octet-stream', maxBytes: 1 << 30 });
    return jsonResponse(200, { success: true });
  };
}

const isPost = (suffix: RegExp) => (request: CoreRequest) => request.method === 'POST' && suffix.test(pathOf(request));

/** A PUT to a used or closed signed URL written over the object its upload confirmed. */
const overwriteConfirmed: Mutant = async (incoming, real, marketplace) => {
  if (incoming.method !== 'PUT' || !pathOf(incoming).startsWith(blobRoutePrefix)) return real(incoming);
  const { request, bytes } = await buffered(incoming);
  const response = await real(request);
  if (response.status !== 403 || !/has been used|no longer works/.test(String(response.body))) return response;
  const path = storagePathOf(pathOf(request).slice(blobRoutePrefix.length))!;
  await marketplace.ports.blobs.put(path, (async function* () { yield bytes; })(), { contentType: request.header('content-type') ?? 'application/octet-stream', maxBytes: 1 << 30 });
  return jsonResponse(200, { success: true });
};

const mutants: { name: string; breaks: string; mutant: Mutant }[] = [
  {
    name: 'a duplicate slug answered 200 instead of 409',
    breaks: 'ASSET-CREATE-SLUG-CONFLICT',
    mutant: rewrite(isPost(/\/api\/v1\/assets$/), (response, body) => (body.code === 'CONFLICT' ? jsonResponse(200, { success: true }) : null)),
  },
  {
    name: 'a token without assets:write can create',
    breaks: 'AUTH-SCOPE-403',
    mutant: rewrite(isPost(/\/api\/v1\/assets$/), (response, body) => (body.code === 'FORBIDDEN' ? jsonResponse(201, { id: crypto.randomUUID(), status: 'draft' }) : null)),
  },
  {
    name: "another seller's asset is not 404",
    breaks: 'GEN-NOT-OWNED-404',
    mutant: async (request, real, marketplace) => {
      const response = await real(request);
      const id = /^\/api\/v1\/assets\/([0-9a-f-]{36})$/.exec(pathOf(request))?.[1];
      if (request.method !== 'GET' || !id || response.status !== 404) return response;
      const asset = await marketplace.ports.storage.getAsset(id);
      return asset ? jsonResponse(200, { ...asset, images: [], category: null }) : response;
    },
  },
  { name: 'an expired upload signature is accepted', breaks: 'UPLOAD-PUT-EXPIRED', mutant: acceptRefusedPut(/expired/) },
  { name: 'an altered upload signature is accepted', breaks: 'UPLOAD-PUT-TAMPERED-403', mutant: acceptRefusedPut(/^(?![\s\S]*expired)/) },
  {
    name: 'the pagination total is one too many',
    breaks: 'ASSET-LIST-PAGINATION',
    mutant: rewrite(
      (request) => request.method === 'GET' && pathOf(request) === '/api/v1/assets',
      (response, body) => (body.pagination ? jsonResponse(200, { ...body, pagination: { ...body.pagination, total: body.pagination.total + 1 } }, response.headers) : null),
    ),
  },
  {
    name: 'submit without a file is accepted',
    breaks: 'SUBMIT-NO-FILE-422',
    mutant: rewrite(isPost(/\/submit$/), (response, body, request) => (body.code === 'NO_FILE' ? jsonResponse(200, { success: true, id: pathOf(request).split('/')[4], status: 'pending', scheduled_publish_at: null }) : null)),
  },
  {
    name: 'a listing in review can be deleted (answered 200)',
    breaks: 'ASSET-DELETE-NOT-DRAFT',
    mutant: rewrite((request) => request.method === 'DELETE', (response, body, request) => (body.code === 'NOT_DRAFT' ? jsonResponse(200, { success: true, id: pathOf(request).split('/')[4] }) : null)),
  },
  {
    name: 'tools/call without a token is answered',
    breaks: 'MCP-TOOLS-CALL-401',
    mutant: async (request, real) => {
      const response = await real(request);
      if (pathOf(request) !== '/api/mcp' || response.status !== 401) return response;
      return jsonResponse(200, { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{}' }], structuredContent: {} } });
    },
  },
  {
    name: 'a batch where every item failed is 207, not 422',
    breaks: 'BATCH-ALL-FAILED-422',
    mutant: rewrite(isPost(/\/assets\/batch$/), (response, body) => (response.status === 422 ? jsonResponse(207, { results: body.results, summary: body.summary }) : null)),
  },
  {
    name: 'the list is oldest first',
    breaks: 'ASSET-LIST-ORDER',
    mutant: rewrite(
      (request) => request.method === 'GET' && pathOf(request) === '/api/v1/assets',
      (response, body) => (Array.isArray(body.data) ? jsonResponse(200, { ...body, data: [...body.data].reverse() }, response.headers) : null),
    ),
  },
  {
    name: 'the second image is primary too',
    breaks: 'IMAGE-CONFIRM',
    mutant: rewrite(isPost(/\/confirm-image$/), (response, body) => (response.status === 201 ? jsonResponse(201, { ...body, is_primary: true }) : null)),
  },
  {
    name: 'revoking a token answers 200 but leaves it working',
    breaks: 'AUTH-REVOKED-401',
    mutant: async (request, real) => {
      const id = /[?&]id=([0-9a-f-]{36})/.exec(request.target)?.[1];
      if (request.method !== 'DELETE' || pathOf(request) !== '/api/v1/tokens' || !id) return real(request);
      return jsonResponse(200, { success: true, id, revoked_at: new Date().toISOString() });
    },
  },
  {
    name: 'an MCP domain refusal is an HTTP error instead of an isError result',
    breaks: 'MCP-TOOL-REFUSAL',
    mutant: rewrite(
      (request) => pathOf(request) === '/api/mcp',
      (response, body) => (body.result?.isError ? jsonResponse(409, { jsonrpc: '2.0', id: body.id, error: { code: -32000, message: 'refused' } }) : null),
    ),
  },
  {
    name: 'a replayed signed URL rewrites a confirmed image',
    breaks: 'UPLOAD-CONFIRMED-IMMUTABLE',
    mutant: overwriteConfirmed,
  },
  {
    name: 'reads are limited in fixed windows (the budget comes back whole at a boundary)',
    breaks: 'GEN-RATE-LIMIT-SLIDING',
    mutant: fixedWindowReads(),
  },
  {
    name: 'a gallery order that names an image twice is answered 200',
    breaks: 'IMAGE-ARRANGE',
    mutant: rewrite((request) => request.method === 'PUT' && /\/images\/order$/.test(pathOf(request)), (response, body) => (body.code === 'INVALID_INPUT' ? jsonResponse(200, { images: [] }) : null)),
  },
];

/**
 * GET /me limited in fixed windows, over the real (sliding) limiter: a caller's window ends 2 s
 * after its first 429 (Retry-After says so), and the next one starts with the whole limit again,
 * what a fixed window does at its boundary.
 */
function fixedWindowReads(): Mutant {
  const callers = new Map<string, { boundary: number; given: number; served: CoreResponse }>();
  return async (request, real) => {
    if (request.method !== 'GET' || pathOf(request) !== '/api/v1/me') return real(request);
    const key = request.header('authorization') ?? '';
    const caller = callers.get(key);
    const now = Date.now();
    if (caller && now >= caller.boundary) {
      const limit = Number(caller.served.headers['ratelimit-limit']);
      if (caller.given < limit) {
        caller.given++;
        return { ...caller.served, headers: { ...caller.served.headers, 'ratelimit-remaining': String(limit - caller.given), 'ratelimit-reset': '60' } };
      }
      return real(request);
    }
    const response = await real(request);
    if (response.status === 200) {
      if (caller) caller.served = response;
      else callers.set(key, { boundary: Infinity, given: 0, served: response });
    } else if (response.status === 429 && caller) {
      if (caller.boundary === Infinity) caller.boundary = now + 2000;
      const left = String(Math.max(1, Math.ceil((caller.boundary - now) / 1000)));
      return { ...response, headers: { ...response.headers, 'retry-after': left, 'ratelimit-reset': left } };
    }
    return response;
  };
}

for (const { name, breaks, mutant } of mutants) {
  test(`the suite fails a server where ${name}, naming ${breaks}`, async () => {
    const server = await startCertifiedServer({ mutant });
    try {
      // Waiting for an upload URL to expire takes seconds: only the mutant about expiry does.
      const expiryWaitSeconds = breaks === 'UPLOAD-PUT-EXPIRED' ? 5 : 0;
      // Probing the rate limit spends thousands of requests: only the mutant about it does, and only that check.
      const rateLimit = breaks === 'GEN-RATE-LIMIT-SLIDING' ? { rateLimitProbe, only: ['rest.general.rate-limit'] } : {};
      const result = await runConformance({ baseUrl: server.url, fixtures: server.fixtures, publishedAssetId: server.publishedAssetId, runs: 2, seed: 7, expiryWaitSeconds, ...rateLimit });
      const failed = result.requirements.filter((r) => r.status === 'failed');
      assert.equal(result.ok, false, 'a broken server must not be certified');
      assert.ok(
        failed.some((r) => r.id === breaks),
        `expected ${breaks} among the failed requirements, got ${failed.map((r) => r.id).join(', ') || 'none'}`,
      );
      const evidence = failed.find((r) => r.id === breaks)!.evidence!;
      assert.ok(evidence.expected.length > 0 && evidence.check.length > 0, 'the failure says what was expected and which check saw it');
    } finally {
      await server.close();
    }
  });
}

test('the model alone catches a mutant and prints the shrunk sequence as replayable HTTP calls', async () => {
  const server = await startCertifiedServer({ mutant: mutants.find((m) => m.breaks === 'ASSET-CREATE-SLUG-CONFLICT')!.mutant });
  try {
    const result = await runConformance({ baseUrl: server.url, fixtures: server.fixtures, runs: 30, seed: 11, only: ['model'] });
    const failed = result.requirements.filter((r) => r.status === 'failed').map((r) => r.id);
    assert.ok(failed.includes('MODEL-SEQUENCES') && failed.includes('ASSET-CREATE-SLUG-CONFLICT'), `failed: ${failed.join(', ')}`);
    const replay = result.requirements.find((r) => r.id === 'ASSET-CREATE-SLUG-CONFLICT')!.evidence!.replay!;
    assert.match(replay[0]!, /^# seed 11, \d+ shrink\(s\); commands: /);
    const calls = replay.slice(1);
    assert.ok(calls.every((line) => line.startsWith('curl -X ')), replay.join('\n'));
    // Shrunk: two creates (or a batch and a create) with one slug are the whole story.
    assert.ok(calls.length <= 3, `a shrunk sequence of at most 3 calls:\n${replay.join('\n')}`);
  } finally {
    await server.close();
  }
});
