/**
 * The commands of the model-based tests, one class per listing operation: each runs its call
 * against the server, and checks the answer and the listing's state against the model.
 */
import { ensure, expectStatus, sampleBytes, type CheckContext } from './check.js';
import { expect404, future, slugTaken, target, verifyGone, verifyState, type Model, type ModelAsset, type Real, type Status } from './model-state.js';

/** The command classes, over the server `ctx` names, as the seller fixture. */
export function modelCommands(ctx: CheckContext) {
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

  return { Create, Batch, Patch, Upload, Image, Submit, Delete, Get, List };
}
