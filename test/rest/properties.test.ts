import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { as, startServer, type TestServer } from '../fixtures/server.js';

let server: TestServer;
let seeded: string;
before(async () => {
  server = await startServer();
  seeded = (await as(server, server.seller.token).post('/assets', { title: 'Seeded', slug: 'seeded' })).body.id;
});
after(() => server.close());

/** Sends a request exactly as generated (raw target, raw headers, raw body) and returns its status. */
function send(method: string, target: string, headers: Record<string, string>, body: Uint8Array | null): Promise<{ status: number; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path: target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

const segment = fc.oneof(
  fc.constantFrom('assets', 'me', 'tokens', 'batch', 'upload-url', 'confirm-file', 'images', 'confirm-image', 'submit', 'blobs', 'health', 'categories', '..', '.', '%2e%2e', '%E0%A4%A', '%00', ''),
  fc.uuid(),
  fc.stringMatching(/^[A-Za-z0-9._~%-]{0,12}$/),
);
const path = fc.array(segment, { maxLength: 6 }).map((parts) => `/api/v1/${parts.join('/')}`);
const query = fc.oneof(
  fc.constant(''),
  fc.dictionary(fc.constantFrom('limit', 'offset', 'status', 'id', 'expires', 'max', 'signature', '__proto__', 'x'), fc.oneof(fc.integer().map(String), fc.string({ maxLength: 20 }).map(encodeURIComponent), fc.constant('%ZZ')))
    .map((params) => '?' + Object.entries(params).map(([k, v]) => `${k}=${v}`).join('&')),
);
const jsonValue = fc.jsonValue({ maxDepth: 4 });
const body = fc.oneof(
  fc.constant(null),
  jsonValue.map((value) => new TextEncoder().encode(JSON.stringify(value))),
  fc.record({ title: fc.string(), slug: fc.string(), price: fc.oneof(fc.double(), fc.constant(1e309)), tags: fc.array(jsonValue), __proto__: jsonValue }, { requiredKeys: [] })
    .map((value) => new TextEncoder().encode(JSON.stringify(value))),
  fc.uint8Array({ maxLength: 200 }),
  fc.constant(new TextEncoder().encode('{"a":' + '['.repeat(5000))),
);

test('no request a client can send yields a 5xx', async () => {
  const token = server.seller.token;
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS', 'HEAD'),
      fc.oneof(path, fc.constantFrom(`/api/v1/assets/${seeded}`, `/api/v1/assets/${seeded}/submit`, `/api/v1/assets/${seeded}/confirm-file`, '/api/v1/assets/batch')),
      query,
      fc.record(
        {
          authorization: fc.oneof(fc.constant(`Bearer ${token}`), fc.constant('Bearer smcp_x'), fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\x20-\x7e]/g, ''))),
          'content-type': fc.constantFrom('application/json', 'text/plain', 'application/merge-patch+json', 'multipart/form-data; boundary=x', ';;;'),
          'x-request-id': fc.string({ maxLength: 140 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
        },
        { requiredKeys: [] },
      ),
      body,
      async (method, target, q, headers, payload) => {
        const sendBody = method === 'GET' || method === 'HEAD' ? null : payload;
        const res = await send(method, target + q, { ...headers, ...(sendBody ? { 'content-length': String(sendBody.byteLength) } : {}) }, sendBody);
        assert.ok(res.status < 500, `${method} ${target}${q} -> ${res.status} ${res.body}`);
        if (method !== 'HEAD' && res.body) {
          const parsed = JSON.parse(res.body);
          if (res.status >= 400) assert.equal(typeof parsed.code, 'string');
        }
      },
    ),
    { numRuns: 400 },
  );
});

const title = fc.string({ minLength: 3, maxLength: 200 }).filter((s) => s.trim().length >= 3);
const pricing = fc.oneof(
  fc.record({ pricing_type: fc.constant('free' as const), price: fc.constantFrom(null, 0) }),
  fc.record({ pricing_type: fc.constant('fixed' as const), price: fc.integer({ min: 1, max: 1_000_000 }).map((c) => c / 100) }),
  fc.record({ pricing_type: fc.constant('pwyw' as const), price: fc.integer({ min: 0, max: 10_000 }).map((c) => c / 100) }),
);
let slugCounter = 0;
const createBody = fc.record(
  {
    title,
    slug: fc.stringMatching(/^[a-z0-9-]{1,80}$/),
    description: fc.option(fc.string({ maxLength: 300 }), { nil: null }),
    pricing,
    tags: fc.array(fc.string({ minLength: 1, maxLength: 50 }).filter((t) => t.trim().length > 0 && t.trim().length <= 50), { maxLength: 20 }),
    visibility: fc.constantFrom('public', 'unlisted', 'private'),
  },
  { requiredKeys: ['title', 'slug'] },
);

test('a valid create body round-trips through GET', async () => {
  await fc.assert(
    fc.asyncProperty(createBody, async ({ pricing: price, ...rest }) => {
      const body: typeof rest & { pricing_type?: string; price?: number | null } = { ...rest, slug: `${rest.slug}-${++slugCounter}`, ...(price ?? {}) };
      const created = await as(server, server.seller.token).post('/assets', body);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const read = (await as(server, server.seller.token).get(`/assets/${created.body.id}`)).body;
      assert.equal(read.title, body.title.trim());
      assert.equal(read.slug, body.slug);
      assert.equal(read.description, body.description ?? null);
      assert.equal(read.visibility, body.visibility ?? 'public');
      assert.equal(read.pricing_type, body.pricing_type ?? 'free');
      assert.equal(read.is_free, (body.pricing_type ?? 'free') === 'free');
      const expectedPrice = body.pricing_type === 'pwyw' ? (body.price ?? 0) : (body.price ?? null);
      assert.equal(read.price, expectedPrice);
      const seen = new Set<string>();
      const tags = (body.tags ?? []).map((t) => t.trim()).filter((t) => !seen.has(t.toLowerCase()) && seen.add(t.toLowerCase()));
      assert.deepEqual(read.tags, tags);
      assert.equal(read.status, 'draft');
      for (const key of Object.keys(created.body)) assert.deepEqual(read[key], created.body[key], key);
    }),
    { numRuns: 150 },
  );
});

test('list pagination over any page size visits every asset exactly once', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(0, 0, 1, 1000), { minLength: 0, maxLength: 40 }),
      fc.integer({ min: 1, max: 100 }),
      async (steps, limit) => {
        const seller = await server.account();
        const client = as(server, seller.token);
        const created = new Set<string>();
        for (const step of steps) {
          // Steps of 0 give equal created_at: the order must still be total and stable.
          server.clock.advance(step);
          created.add((await client.post('/assets', { title: 'Paged', slug: `paged-${++slugCounter}` })).body.id);
        }
        const seen: string[] = [];
        for (let offset = 0; ; offset += limit) {
          const page = await client.get(`/assets?limit=${limit}&offset=${offset}`);
          assert.equal(page.status, 200);
          assert.equal(page.body.pagination.total, created.size);
          seen.push(...page.body.data.map((a: { id: string }) => a.id));
          if (!page.body.pagination.has_more) break;
        }
        assert.equal(seen.length, created.size, 'no asset twice');
        assert.deepEqual(new Set(seen), created, 'every asset once');
      },
    ),
    { numRuns: 40 },
  );
});
