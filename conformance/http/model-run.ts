/**
 * Model-based tests: fast-check makes random sequences of listing operations, runs them against
 * the server and a small reference model of the contract, and after every step compares the
 * server's answer (status, code, the listing's resulting state) with the model. A failure is
 * shrunk to a short sequence and reported as the HTTP calls that reproduce it.
 *
 * fast-check is imported lazily, so that the port suites of `marketkit/conformance` load without it.
 */
import { RequirementFailure, ensure, expectStatus, sampleBytes, type CheckContext } from './check.js';
import { replayLine, type Exchange } from './client.js';

type Status = 'draft' | 'pending' | 'scheduled';

interface ModelAsset {
  id: string;
  slug: string;
  status: Status;
  hasFile: boolean;
  images: number;
  scheduled: boolean;
}

/** The reference model: the listings this run made, and those it deleted. */
interface Model {
  live: ModelAsset[];
  deleted: string[];
}

interface Real {
  ctx: CheckContext;
  prefix: string;
}

const future = () => new Date(Date.now() + 30 * 86_400_000).toISOString();

function target(model: Model, pick: number): { asset?: ModelAsset; id: string } {
  const all = [...model.live.map((asset) => asset.id), ...model.deleted];
  if (all.length === 0) return { id: '00000000-0000-4000-8000-000000000000' };
  const id = all[pick % all.length]!;
  return { id, asset: model.live.find((asset) => asset.id === id) };
}

const slugTaken = (model: Model, slug: string, except?: string) => model.live.some((asset) => asset.slug === slug && asset.id !== except);

function expect404(requirement: string, exchange: Exchange) {
  expectStatus(requirement, exchange, 404, 'NOT_FOUND');
}

/** The listing's state on the server must be the model's: read back after every step that may change it. */
async function verifyState(ctx: CheckContext, requirement: string, asset: ModelAsset): Promise<void> {
  const answer = await ctx.client.get(`/assets/${asset.id}`, ctx.fixtures.seller);
  expectStatus(requirement, answer, 200);
  const b = answer.body;
  ensure(
    requirement,
    b?.status === asset.status && b.slug === asset.slug && (b.file !== null) === asset.hasFile && b.images?.length === asset.images && (b.scheduled_publish_at !== null) === asset.scheduled,
    `the listing afterwards: status ${asset.status}, slug ${asset.slug}, file ${asset.hasFile ? 'present' : 'null'}, ${asset.images} image(s), ${asset.scheduled ? 'scheduled' : 'not scheduled'}`,
    answer,
  );
}

async function verifyGone(ctx: CheckContext, requirement: string, id: string): Promise<void> {
  expect404(requirement, await ctx.client.get(`/assets/${id}`, ctx.fixtures.seller));
}

export interface ModelOptions {
  runs: number;
  seed: number;
  maxCommands?: number;
  onRun?: (run: number) => void;
}

export async function runModel(ctx: CheckContext, options: ModelOptions): Promise<void> {
  const fc = await import('fast-check').catch(() => {
    throw new Error('marketkit conformance: the model-based tests need the fast-check package (npm install fast-check), or run with --runs 0');
  });
  const token = ctx.fixtures.seller;
  const { client } = ctx;
  type Cmd = import('fast-check').AsyncCommand<Model, Real, false>;

  class Create implements Cmd {
    constructor(readonly slugIndex: number, readonly valid: boolean, readonly scheduled: boolean) {}
    check = () => true;
    async run(model: Model, real: Real) {
      const slug = `${real.prefix}-${this.slugIndex}`;
      const body: Record<string, unknown> = { title: this.valid ? `Model Asset ${this.slugIndex}` : 'x', slug };
      if (this.scheduled) body.scheduled_publish_at = future();
      const answer = await client.post('/assets', token, body);
      if (!this.valid) return expectStatus('ASSET-CREATE-VALIDATION', answer, 400, 'INVALID_INPUT');
      if (slugTaken(model, slug)) return expectStatus('ASSET-CREATE-SLUG-CONFLICT', answer, 409, 'CONFLICT');
      expectStatus('ASSET-CREATE', answer, 201);
      ensure('ASSET-CREATE', answer.body?.status === 'draft' && answer.body.slug === slug, 'a draft with the slug sent', answer);
      const asset: ModelAsset = { id: answer.body.id, slug, status: 'draft', hasFile: false, images: 0, scheduled: this.scheduled };
      model.live.push(asset);
      await verifyState(ctx, 'ASSET-CREATE', asset);
    }
    toString = () => `create(slug ${this.slugIndex}${this.valid ? '' : ', invalid title'}${this.scheduled ? ', scheduled' : ''})`;
  }

  class Batch implements Cmd {
    constructor(readonly items: { slugIndex: number; valid: boolean }[]) {}
    check = () => true;
    async run(model: Model, real: Real) {
      const bodies = this.items.map((item) => ({ title: item.valid ? `Batch Asset ${item.slugIndex}` : 'x', slug: `${real.prefix}-${item.slugIndex}` }));
      const answer = await client.post('/assets/batch', token, { assets: bodies });
      const expected: number[] = [];
      const taken = new Set(model.live.map((asset) => asset.slug));
      for (const [i, item] of this.items.entries()) {
        if (!item.valid) expected.push(400);
        else if (taken.has(bodies[i]!.slug)) expected.push(409);
        else {
          expected.push(201);
          taken.add(bodies[i]!.slug);
        }
      }
      const allFailed = !expected.includes(201);
      if (allFailed) expectStatus('BATCH-ALL-FAILED-422', answer, 422, 'BATCH_FAILED');
      else expectStatus('BATCH-207', answer, 207);
      const got: number[] = (answer.body?.results ?? []).map((result: { status: number }) => result.status);
      ensure('BATCH-207', JSON.stringify(got) === JSON.stringify(expected), `per-item statuses ${JSON.stringify(expected)}`, answer);
      for (const [i, result] of (answer.body.results as any[]).entries()) {
        if (result.status !== 201) continue;
        const asset: ModelAsset = { id: result.asset.id, slug: bodies[i]!.slug, status: 'draft', hasFile: false, images: 0, scheduled: false };
        model.live.push(asset);
        await verifyState(ctx, 'BATCH-207', asset);
      }
    }
    toString = () => `batch(${this.items.map((item) => `${item.slugIndex}${item.valid ? '' : '!'}`).join(' ')})`;
  }

  class Patch implements Cmd {
    constructor(readonly pick: number, readonly change: 'title' | 'slug' | 'schedule' | 'unschedule', readonly slugIndex: number) {}
    check = () => true;
    async run(model: Model, real: Real) {
      const { asset, id } = target(model, this.pick);
      const slug = `${real.prefix}-${this.slugIndex}`;
      const body =
        this.change === 'title' ? { title: `Renamed ${this.slugIndex}` } : this.change === 'slug' ? { slug } : { scheduled_publish_at: this.change === 'schedule' ? future() : null };
      const answer = await client.patch(`/assets/${id}`, token, body);
      if (!asset) return expect404('ASSET-GET-MISSING-404', answer);
      if (asset.status !== 'draft') {
        expectStatus('ASSET-PATCH-STATUS-409', answer, 409, this.change === 'slug' ? ['INVALID_STATUS', 'CONFLICT'] : 'INVALID_STATUS');
        return verifyState(ctx, 'ASSET-PATCH-STATUS-409', asset);
      }
      if (this.change === 'slug' && slugTaken(model, slug, asset.id)) {
        expectStatus('ASSET-CREATE-SLUG-CONFLICT', answer, 409, 'CONFLICT');
        return verifyState(ctx, 'ASSET-CREATE-SLUG-CONFLICT', asset);
      }
      expectStatus('ASSET-PATCH', answer, 200);
      if (this.change === 'slug') asset.slug = slug;
      if (this.change === 'schedule' || this.change === 'unschedule') asset.scheduled = this.change === 'schedule';
      await verifyState(ctx, 'ASSET-PATCH', asset);
    }
    toString = () => `patch(#${this.pick}, ${this.change}${this.change === 'slug' ? ` ${this.slugIndex}` : ''})`;
  }

  class Upload implements Cmd {
    constructor(readonly pick: number) {}
    check = () => true;
    async run(model: Model) {
      const { asset, id } = target(model, this.pick);
      const issued = await client.post(`/assets/${id}/upload-url`, token, { filename: 'model.zip' });
      if (!asset) return expect404('ASSET-GET-MISSING-404', issued);
      if (asset.status !== 'draft') {
        expectStatus('UPLOAD-URL-STATUS-409', issued, 409, 'INVALID_STATUS');
        return verifyState(ctx, 'UPLOAD-URL-STATUS-409', asset);
      }
      expectStatus('UPLOAD-URL', issued, 200);
      expectStatus('UPLOAD-PUT-NO-AUTH', await client.put(issued.body.signed_url, sampleBytes.zip, 'application/zip'), [200, 201, 204]);
      const confirmed = await client.post(`/assets/${id}/confirm-file`, token, { storage_path: issued.body.storage_path, file_size: sampleBytes.zip.byteLength });
      expectStatus('UPLOAD-CONFIRM', confirmed, 200);
      asset.hasFile = true;
      await verifyState(ctx, 'UPLOAD-CONFIRM', asset);
    }
    toString = () => `upload-file(#${this.pick})`;
  }

  class Image implements Cmd {
    constructor(readonly pick: number) {}
    // Images on listings in review are left to each implementation: only drafts get them here.
    check = (model: Readonly<Model>) => target(model as Model, this.pick).asset?.status === 'draft';
    async run(model: Model) {
      const { asset, id } = target(model, this.pick);
      const issued = await client.post(`/assets/${id}/images/upload-url`, token, { filename: 'model.png' });
      expectStatus('IMAGE-URL', issued, 200);
      expectStatus('UPLOAD-PUT-NO-AUTH', await client.put(issued.body.signed_url, sampleBytes.png, 'image/png'), [200, 201, 204]);
      const confirmed = await client.post(`/assets/${id}/confirm-image`, token, { public_url: issued.body.public_url });
      if (asset!.images >= 10) {
        expectStatus('IMAGE-LIMIT', confirmed, 409, 'CONFLICT');
        return verifyState(ctx, 'IMAGE-LIMIT', asset!);
      }
      expectStatus('IMAGE-CONFIRM', confirmed, 201);
      ensure('IMAGE-CONFIRM', confirmed.body?.is_primary === (asset!.images === 0), `is_primary ${asset!.images === 0} for image ${asset!.images + 1}`, confirmed);
      asset!.images++;
      await verifyState(ctx, 'IMAGE-CONFIRM', asset!);
    }
    toString = () => `upload-image(#${this.pick})`;
  }

  class Submit implements Cmd {
    constructor(readonly pick: number) {}
    check = () => true;
    async run(model: Model) {
      const { asset, id } = target(model, this.pick);
      const answer = await client.post(`/assets/${id}/submit`, token);
      if (!asset) return expect404('ASSET-GET-MISSING-404', answer);
      if (asset.status !== 'draft') {
        expectStatus('SUBMIT-STATUS-409', answer, 409, 'INVALID_STATUS');
        return verifyState(ctx, 'SUBMIT-STATUS-409', asset);
      }
      if (!asset.hasFile) {
        expectStatus('SUBMIT-NO-FILE-422', answer, 422, 'NO_FILE');
        return verifyState(ctx, 'SUBMIT-NO-FILE-422', asset);
      }
      const next: Status = asset.scheduled ? 'scheduled' : 'pending';
      expectStatus(asset.scheduled ? 'SUBMIT-SCHEDULED' : 'SUBMIT-PENDING', answer, 200);
      ensure(asset.scheduled ? 'SUBMIT-SCHEDULED' : 'SUBMIT-PENDING', answer.body?.status === next, `status ${next}`, answer);
      asset.status = next;
      await verifyState(ctx, asset.scheduled ? 'SUBMIT-SCHEDULED' : 'SUBMIT-PENDING', asset);
    }
    toString = () => `submit(#${this.pick})`;
  }

  class Delete implements Cmd {
    constructor(readonly pick: number) {}
    check = () => true;
    async run(model: Model) {
      const { asset, id } = target(model, this.pick);
      const answer = await client.delete(`/assets/${id}`, token);
      if (!asset) return expect404('ASSET-DELETE', answer);
      if (asset.status !== 'draft') {
        expectStatus('ASSET-DELETE-NOT-DRAFT', answer, 409, 'NOT_DRAFT');
        return verifyState(ctx, 'ASSET-DELETE-NOT-DRAFT', asset);
      }
      expectStatus('ASSET-DELETE', answer, 200);
      model.live = model.live.filter((a) => a !== asset);
      model.deleted.push(asset.id);
      await verifyGone(ctx, 'ASSET-DELETE', asset.id);
    }
    toString = () => `delete(#${this.pick})`;
  }

  class Get implements Cmd {
    constructor(readonly pick: number) {}
    check = () => true;
    async run(model: Model) {
      const { asset, id } = target(model, this.pick);
      const answer = await client.get(`/assets/${id}`, token);
      if (!asset) return expect404(model.deleted.includes(id) ? 'ASSET-DELETE' : 'ASSET-GET-MISSING-404', answer);
      expectStatus('ASSET-GET', answer, 200);
      const b = answer.body;
      ensure('ASSET-GET', b?.status === asset.status && b.slug === asset.slug && (b.file !== null) === asset.hasFile && b.images?.length === asset.images, `status ${asset.status}, slug ${asset.slug}, file ${asset.hasFile ? 'present' : 'null'}, ${asset.images} image(s)`, answer);
    }
    toString = () => `get(#${this.pick})`;
  }

  class List implements Cmd {
    check = () => true;
    async run(model: Model) {
      const answer = await client.get('/assets?limit=100', token);
      expectStatus('ASSET-LIST-PAGINATION', answer, 200);
      const byId = new Map<string, any>((answer.body?.data ?? []).map((item: { id: string }) => [item.id, item]));
      for (const asset of model.live) ensure('ASSET-LIST-PAGINATION', byId.get(asset.id)?.status === asset.status, `listing ${asset.id} listed with status ${asset.status}`, answer);
      for (const id of model.deleted) ensure('ASSET-DELETE', !byId.has(id), `deleted listing ${id} not listed`, answer);
      const filtered = await client.get('/assets?limit=100&status=draft', token);
      expectStatus('ASSET-LIST-FILTER', filtered, 200);
      const drafts = new Set((filtered.body?.data ?? []).map((item: { id: string }) => item.id));
      for (const asset of model.live) ensure('ASSET-LIST-FILTER', drafts.has(asset.id) === (asset.status === 'draft'), `listing ${asset.id} ${asset.status === 'draft' ? 'in' : 'not in'} ?status=draft`, filtered);
    }
    toString = () => 'list()';
  }

  // Few slugs, so that conflicts happen; creates weigh double, so that listings exist to act on.
  const slugIndex = fc.integer({ min: 0, max: 2 });
  const create = fc.tuple(slugIndex, fc.nat({ max: 4 }), fc.boolean()).map(([s, v, sch]) => new Create(s, v > 0, sch));
  const pick = fc.nat({ max: 11 });
  const commands = [
    create,
    create,
    fc.array(fc.record({ slugIndex, valid: fc.nat({ max: 3 }).map((n) => n > 0) }), { minLength: 1, maxLength: 4 }).map((items) => new Batch(items)),
    fc.tuple(pick, fc.constantFrom('title', 'slug', 'schedule', 'unschedule') as import('fast-check').Arbitrary<'title' | 'slug' | 'schedule' | 'unschedule'>, slugIndex).map(([p, c, s]) => new Patch(p, c, s)),
    pick.map((p) => new Upload(p)),
    pick.map((p) => new Image(p)),
    pick.map((p) => new Submit(p)),
    pick.map((p) => new Delete(p)),
    pick.map((p) => new Get(p)),
    fc.constant(null).map(() => new List()),
  ];

  let runIndex = 0;
  // The calls of the latest failing run: after shrinking, the smallest counterexample.
  let failingRun: Exchange[] = [];
  const property = fc.asyncProperty(fc.commands(commands, { maxCommands: options.maxCommands ?? 12 }), async (cmds) => {
    runIndex++;
    options.onRun?.(runIndex);
    client.take();
    const prefix = ctx.slug(`m${runIndex}`);
    try {
      await fc.asyncModelRun(() => ({ model: { live: [], deleted: [] } as Model, real: { ctx, prefix } }), cmds);
    } catch (error) {
      failingRun = client.take();
      throw error;
    }
  });
  const details = await fc.check(property, { numRuns: options.runs, seed: options.seed, interruptAfterTimeLimit: 300_000 });
  if (!details.failed) return;
  const error = details.errorInstance;
  const commandsShown = String(details.counterexample?.[0] ?? '');
  const replay = [`# seed ${options.seed}, ${details.numShrinks} shrink(s); commands: ${commandsShown}`, ...failingRun.map(replayLine)];
  if (error instanceof RequirementFailure) throw new RequirementFailure(error.requirement, error.evidence, replay);
  throw new RequirementFailure('MODEL-SEQUENCES', { expected: `a run the model can follow (${error instanceof Error ? error.message : String(error)})` }, replay);
}
