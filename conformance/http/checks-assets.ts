/** Checks of listings: create, read, list, update, delete, batch, ownership. */
import { ensure, expectError, expectStatus, type Check, type CheckContext } from './check.js';
import { createDraft, pendingAsset, unknownId } from './flows.js';

const assetFields = ['id', 'title', 'slug', 'description', 'status', 'visibility', 'pricing_type', 'price', 'is_free', 'version', 'category_id', 'tags', 'scheduled_publish_at', 'download_count', 'view_count', 'created_at', 'updated_at'];

/** Newest first: created_at desc, then id desc. */
function inListOrder(a: { created_at: string; id: string }, b: { created_at: string; id: string }): boolean {
  return a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id);
}

async function listAll(ctx: CheckContext, query: string) {
  const items: any[] = [];
  let total = -1;
  for (let offset = 0; offset < 2000; offset += 100) {
    const page = await ctx.client.get(`/assets?limit=100&offset=${offset}${query}`, ctx.fixtures.seller);
    expectStatus('ASSET-LIST-PAGINATION', page, 200);
    total = page.body.pagination.total;
    items.push(...page.body.data);
    const more = offset + page.body.data.length < total;
    ensure('ASSET-LIST-PAGINATION', page.body.pagination.has_more === more, `has_more ${more} at offset ${offset} of total ${total}`, page);
    if (!more) break;
  }
  return { items, total };
}

export const assetChecks: Check[] = [
  {
    id: 'rest.assets.create',
    title: 'POST /assets creates a draft with the contract defaults',
    requirements: ['ASSET-CREATE', 'ASSET-CREATE-TAGS', 'ASSET-GET'],
    async run(ctx) {
      const slug = ctx.slug();
      const created = await ctx.client.post('/assets', ctx.fixtures.seller, { title: '  Castle Pack  ', slug, tags: [' castle ', 'Medieval', 'castle', 'medieval', 'walls'] });
      expectStatus('ASSET-CREATE', created, 201);
      const asset = created.body;
      for (const field of assetFields) ensure('ASSET-CREATE', field in asset, `the asset field ${field}`, created);
      const expected = { title: 'Castle Pack', slug, status: 'draft', version: '1.0.0', pricing_type: 'free', is_free: true, visibility: 'public', download_count: 0, view_count: 0 };
      for (const [field, value] of Object.entries(expected)) ensure('ASSET-CREATE', asset[field] === value, `${field} ${JSON.stringify(value)}`, created);
      ensure('ASSET-CREATE-TAGS', JSON.stringify(asset.tags) === JSON.stringify(['castle', 'Medieval', 'walls']), 'tags ["castle","Medieval","walls"] (trimmed, case-insensitive duplicates removed, order kept)', created);
      const detail = await ctx.client.get(`/assets/${asset.id}`, ctx.fixtures.seller);
      expectStatus('ASSET-GET', detail, 200);
      ensure('ASSET-GET', detail.body.id === asset.id && Array.isArray(detail.body.images) && 'category' in detail.body && detail.body.file === null, 'the asset with images [], category and file null', detail);
    },
  },
  {
    id: 'rest.assets.create-validation',
    title: 'invalid create bodies are 400 naming the field',
    requirements: ['ASSET-CREATE-VALIDATION', 'ASSET-CREATE-PRICING'],
    async run(ctx) {
      const bad: [string, Record<string, unknown>][] = [
        ['title', { title: 'ab' }],
        ['title', { title: 'x'.repeat(201) }],
        ['slug', { slug: 'Not A Slug' }],
        ['price', { pricing_type: 'pwyw', price: -1 }],
        ['tags', { tags: Array.from({ length: 21 }, (_, i) => `tag${i}`) }],
        ['price', { pricing_type: 'fixed', price: 1.234 }],
        ['category_id', { category_id: crypto.randomUUID() }],
        ['title', { title: undefined }],
        ['slug', { slug: undefined }],
      ];
      for (const [field, change] of bad) {
        const body = JSON.parse(JSON.stringify({ title: 'Valid Title', slug: ctx.slug(), ...change }));
        expectError('ASSET-CREATE-VALIDATION', await ctx.client.post('/assets', ctx.fixtures.seller, body), 400, 'INVALID_INPUT', field);
      }
      expectError('ASSET-CREATE-PRICING', await ctx.client.post('/assets', ctx.fixtures.seller, { title: 'Fixed Zero', slug: ctx.slug(), pricing_type: 'fixed', price: 0 }), 400, 'INVALID_INPUT', 'price');
      const fixed = await ctx.client.post('/assets', ctx.fixtures.seller, { title: 'Fixed Price', slug: ctx.slug(), pricing_type: 'fixed', price: 4.99 });
      expectStatus('ASSET-CREATE-PRICING', fixed, 201);
      ensure('ASSET-CREATE-PRICING', fixed.body.is_free === false && fixed.body.price === 4.99, 'is_free false, price 4.99', fixed);
    },
  },
  {
    id: 'rest.assets.slug-conflict',
    title: 'a duplicate slug is 409 CONFLICT',
    requirements: ['ASSET-CREATE-SLUG-CONFLICT'],
    async run(ctx) {
      const asset = await createDraft(ctx);
      expectError('ASSET-CREATE-SLUG-CONFLICT', await ctx.client.post('/assets', ctx.fixtures.seller, { title: 'Same Slug', slug: asset.slug }), 409, 'CONFLICT');
      const other = await createDraft(ctx);
      expectError('ASSET-CREATE-SLUG-CONFLICT', await ctx.client.patch(`/assets/${other.id}`, ctx.fixtures.seller, { slug: asset.slug }), 409, 'CONFLICT');
    },
  },
  {
    id: 'rest.assets.slug-global',
    title: 'slugs are unique across sellers',
    requirements: ['ASSET-CREATE-SLUG-GLOBAL'],
    needs: ['secondSeller'],
    async run(ctx) {
      const asset = await createDraft(ctx);
      expectError('ASSET-CREATE-SLUG-GLOBAL', await ctx.client.post('/assets', ctx.fixtures.secondSeller, { title: 'Their Slug', slug: asset.slug }), 409, 'CONFLICT');
    },
  },
  {
    id: 'rest.assets.not-a-seller',
    title: 'a non-seller cannot create, alone or in a batch',
    requirements: ['ASSET-CREATE-NOT-A-SELLER', 'BATCH-NOT-A-SELLER'],
    needs: ['nonSeller'],
    async run(ctx) {
      const body = { title: 'Not Mine To Sell', slug: ctx.slug() };
      expectError('ASSET-CREATE-NOT-A-SELLER', await ctx.client.post('/assets', ctx.fixtures.nonSeller, body), 403, 'NOT_A_SELLER');
      expectError('BATCH-NOT-A-SELLER', await ctx.client.post('/assets/batch', ctx.fixtures.nonSeller, { assets: [body] }), 403, 'NOT_A_SELLER');
    },
  },
  {
    id: 'rest.assets.restricted',
    title: 'a restricted seller cannot create',
    requirements: ['ASSET-CREATE-RESTRICTED'],
    needs: ['restricted'],
    async run(ctx) {
      expectError('ASSET-CREATE-RESTRICTED', await ctx.client.post('/assets', ctx.fixtures.restricted, { title: 'Restricted', slug: ctx.slug() }), 403, 'ACCOUNT_RESTRICTED');
    },
  },
  {
    id: 'rest.assets.missing',
    title: 'an unknown asset id is 404',
    requirements: ['ASSET-GET-MISSING-404'],
    async run({ client, fixtures }) {
      expectError('ASSET-GET-MISSING-404', await client.get(`/assets/${unknownId()}`, fixtures.seller), 404, 'NOT_FOUND');
      expectError('ASSET-GET-MISSING-404', await client.delete(`/assets/${unknownId()}`, fixtures.seller), 404, 'NOT_FOUND');
    },
  },
  {
    id: 'rest.assets.ownership',
    title: "another seller's asset is 404 everywhere",
    requirements: ['ASSET-OWNERSHIP', 'GEN-NOT-OWNED-404'],
    needs: ['secondSeller'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const other = fixtures.secondSeller!;
      const asset = await createDraft(ctx);
      const attempts = [
        client.get(`/assets/${asset.id}`, other),
        client.patch(`/assets/${asset.id}`, other, { title: 'Taken Over' }),
        client.delete(`/assets/${asset.id}`, other),
        client.post(`/assets/${asset.id}/upload-url`, other, { filename: 'a.zip' }),
        client.post(`/assets/${asset.id}/images/upload-url`, other, { filename: 'a.png' }),
        client.post(`/assets/${asset.id}/submit`, other),
      ];
      for (const attempt of attempts) expectError('GEN-NOT-OWNED-404', await attempt, 404, 'NOT_FOUND');
      const listed = await client.get('/assets?limit=100', other);
      expectStatus('ASSET-OWNERSHIP', listed, 200);
      ensure('ASSET-OWNERSHIP', !listed.body.data.some((item: { id: string }) => item.id === asset.id), "the other seller's list without this asset", listed);
      const still = await client.get(`/assets/${asset.id}`, fixtures.seller);
      ensure('ASSET-OWNERSHIP', still.status === 200 && still.body.title === asset.title, 'the asset unchanged for its owner', still);
    },
  },
  {
    id: 'rest.assets.list',
    title: 'GET /assets: pagination, order, filter',
    requirements: ['ASSET-LIST-PAGINATION', 'ASSET-LIST-ORDER', 'ASSET-LIST-FILTER'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const before = await client.get('/assets?limit=1', fixtures.seller);
      expectStatus('ASSET-LIST-PAGINATION', before, 200);
      const p = before.body.pagination;
      ensure('ASSET-LIST-PAGINATION', p && p.limit === 1 && p.offset === 0 && Number.isInteger(p.total) && typeof p.has_more === 'boolean', 'pagination { limit: 1, offset: 0, total, has_more }', before);
      const made = [await createDraft(ctx), await createDraft(ctx), await createDraft(ctx)];
      const first = await client.get('/assets?limit=2', fixtures.seller);
      ensure('ASSET-LIST-PAGINATION', first.body.data.length === 2 && first.body.pagination.total === p.total + 3 && first.body.pagination.has_more === true, `2 items of total ${p.total + 3}, has_more true`, first);
      // Creates within one millisecond are ordered by id: the expected order comes from the answers.
      const newest = [...made].sort((a, b) => (inListOrder(a, b) ? -1 : 1));
      ensure('ASSET-LIST-ORDER', first.body.data[0].id === newest[0].id && first.body.data[1].id === newest[1].id, 'the newest two first', first);
      const second = await client.get('/assets?limit=2&offset=1', fixtures.seller);
      ensure('ASSET-LIST-PAGINATION', second.body.pagination.offset === 1 && second.body.data[0]?.id === newest[1].id, 'offset 1 to start at the second newest', second);
      const defaults = await client.get('/assets', fixtures.seller);
      ensure('ASSET-LIST-PAGINATION', defaults.body.pagination.limit === 50 && defaults.body.data.length === Math.min(50, p.total + 3), 'limit 50 by default', defaults);
      const { items, total } = await listAll(ctx, '');
      ensure('ASSET-LIST-PAGINATION', items.length === total && new Set(items.map((item) => item.id)).size === total, `walking the pages gives total (${total}) distinct listings, got ${items.length}`);
      for (let i = 1; i < items.length; i++) ensure('ASSET-LIST-ORDER', inListOrder(items[i - 1], items[i]), `newest first across pages at position ${i}`);
      const pending = await pendingAsset(ctx);
      const filtered = await listAll(ctx, '&status=pending');
      ensure('ASSET-LIST-FILTER', filtered.items.every((item) => item.status === 'pending') && filtered.items.some((item) => item.id === pending), 'only pending listings, this one among them');
      const drafts = await listAll(ctx, '&status=draft');
      ensure('ASSET-LIST-FILTER', drafts.items.every((item) => item.status === 'draft') && !drafts.items.some((item) => item.id === pending), 'only drafts');
      const scheduled = await client.get('/assets?status=scheduled', fixtures.seller);
      expectStatus('ASSET-LIST-FILTER', scheduled, 200);
    },
  },
  {
    id: 'rest.assets.list-input',
    title: 'GET /assets refuses limits, offsets and statuses outside the contract',
    requirements: ['ASSET-LIST-INPUT'],
    async run({ client, fixtures }) {
      for (const [query, field] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['limit=ten', 'limit'], ['offset=-1', 'offset'], ['status=sold', 'status']] as const) {
        expectError('ASSET-LIST-INPUT', await client.get(`/assets?${query}`, fixtures.seller), 400, 'INVALID_INPUT', field);
      }
      expectStatus('ASSET-LIST-INPUT', await client.get('/assets?limit=100', fixtures.seller), 200);
    },
  },
  {
    id: 'rest.assets.patch',
    title: 'PATCH /assets/{id}',
    requirements: ['ASSET-PATCH', 'ASSET-PATCH-EMPTY-400', 'ASSET-PATCH-STATUS-409'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const asset = await createDraft(ctx, { description: 'first', tags: ['a'] });
      const patched = await client.patch(`/assets/${asset.id}`, fixtures.seller, { title: 'Renamed Pack', pricing_type: 'pwyw', price: 2 });
      expectStatus('ASSET-PATCH', patched, 200);
      const b = patched.body;
      ensure('ASSET-PATCH', b.title === 'Renamed Pack' && b.pricing_type === 'pwyw' && b.price === 2 && b.description === 'first' && b.slug === asset.slug && JSON.stringify(b.tags) === '["a"]', 'title and pricing changed, the rest kept', patched);
      const read = await client.get(`/assets/${asset.id}`, fixtures.seller);
      ensure('ASSET-PATCH', read.body?.title === 'Renamed Pack', 'GET to show the change', read);
      expectError('ASSET-PATCH-EMPTY-400', await client.patch(`/assets/${asset.id}`, fixtures.seller, {}), 400, 'INVALID_INPUT');
      const pending = await pendingAsset(ctx);
      expectError('ASSET-PATCH-STATUS-409', await client.patch(`/assets/${pending}`, fixtures.seller, { title: 'Too Late' }), 409, 'INVALID_STATUS');
    },
  },
  {
    id: 'rest.assets.plan-feature',
    title: 'scheduling without the plan feature is 409 PRECONDITION_FAILED',
    requirements: ['ASSET-PATCH-PRECONDITION'],
    needs: ['noPayouts'],
    async run(ctx) {
      const asset = await createDraft(ctx, {}, ctx.fixtures.noPayouts);
      const future = new Date(Date.now() + 30 * 86_400_000).toISOString();
      expectError('ASSET-PATCH-PRECONDITION', await ctx.client.patch(`/assets/${asset.id}`, ctx.fixtures.noPayouts, { scheduled_publish_at: future }), 409, 'PRECONDITION_FAILED');
    },
  },
  {
    id: 'rest.assets.delete',
    title: 'DELETE a draft; not a pending listing',
    requirements: ['ASSET-DELETE', 'ASSET-DELETE-NOT-DRAFT'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const asset = await createDraft(ctx);
      const deleted = await client.delete(`/assets/${asset.id}`, fixtures.seller);
      expectStatus('ASSET-DELETE', deleted, 200);
      ensure('ASSET-DELETE', deleted.body?.success === true && deleted.body.id === asset.id, '{ success: true, id }', deleted);
      expectError('ASSET-DELETE', await client.get(`/assets/${asset.id}`, fixtures.seller), 404, 'NOT_FOUND');
      const again = await client.post('/assets', fixtures.seller, { title: 'Slug Freed', slug: asset.slug });
      expectStatus('ASSET-DELETE', again, 201);
      const pending = await pendingAsset(ctx);
      expectError('ASSET-DELETE-NOT-DRAFT', await client.delete(`/assets/${pending}`, fixtures.seller), 409, 'NOT_DRAFT');
      const still = await client.get(`/assets/${pending}`, fixtures.seller);
      ensure('ASSET-DELETE-NOT-DRAFT', still.status === 200 && still.body.status === 'pending', 'the pending listing still there', still);
    },
  },
  {
    id: 'rest.assets.batch',
    title: 'POST /assets/batch',
    requirements: ['BATCH-207', 'BATCH-ALL-FAILED-422', 'BATCH-SIZE-400'],
    async run(ctx) {
      const { client, fixtures } = ctx;
      const slug = ctx.slug();
      const batch = await client.post('/assets/batch', fixtures.seller, {
        assets: [
          { title: 'Batch One', slug },
          { title: 'Batch Two', slug },
          { title: 'x', slug: ctx.slug() },
        ],
      });
      expectStatus('BATCH-207', batch, 207);
      const [one, two, three] = batch.body?.results ?? [];
      ensure('BATCH-207', one?.index === 0 && one.status === 201 && one.asset?.slug === slug && one.asset.status === 'draft', 'results[0]: { index: 0, status: 201, asset }', batch);
      ensure('BATCH-207', two?.index === 1 && two.status === 409 && two.error?.code === 'CONFLICT', 'results[1]: 409 CONFLICT (the slug of item 0)', batch);
      ensure('BATCH-207', three?.index === 2 && three.status === 400 && three.error?.code === 'INVALID_INPUT', 'results[2]: 400 INVALID_INPUT', batch);
      const s = batch.body.summary;
      ensure('BATCH-207', s?.total === 3 && s.succeeded === 1 && s.failed === 2, 'summary { total: 3, succeeded: 1, failed: 2 }', batch);
      const created = await client.get(`/assets/${one.asset.id}`, fixtures.seller);
      expectStatus('BATCH-207', created, 200);

      const failed = await client.post('/assets/batch', fixtures.seller, { assets: [{ title: 'Dup', slug }, { title: 'y', slug: ctx.slug() }] });
      expectError('BATCH-ALL-FAILED-422', failed, 422, 'BATCH_FAILED');
      ensure('BATCH-ALL-FAILED-422', failed.body.results?.length === 2 && failed.body.summary?.failed === 2 && failed.body.summary.succeeded === 0, 'the per-item results and summary', failed);

      expectError('BATCH-SIZE-400', await client.post('/assets/batch', fixtures.seller, { assets: [] }), 400, 'INVALID_INPUT', 'assets');
      const tooMany = Array.from({ length: 26 }, () => ({ title: 'Too Many', slug: ctx.slug() }));
      expectError('BATCH-SIZE-400', await client.post('/assets/batch', fixtures.seller, { assets: tooMany }), 400, 'INVALID_INPUT', 'assets');
      const none = await client.get(`/assets?limit=100`, fixtures.seller);
      ensure('BATCH-SIZE-400', !none.body.data.some((item: { slug: string }) => item.slug === tooMany[0]!.slug), 'nothing created from a refused batch', none);
    },
  },
];
