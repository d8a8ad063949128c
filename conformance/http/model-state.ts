/** The model-based tests' reference model of the contract, and the checks of the server's state against it. */
import { ensure, expectStatus, type CheckContext } from './check.js';
import type { Exchange } from './client.js';

export type Status = 'draft' | 'pending' | 'scheduled';

export interface ModelAsset {
  id: string;
  slug: string;
  status: Status;
  hasFile: boolean;
  images: number;
  scheduled: boolean;
}

/** The reference model: the listings this run made, and those it deleted. */
export interface Model {
  live: ModelAsset[];
  deleted: string[];
}

export interface Real {
  ctx: CheckContext;
  prefix: string;
}

export const future = () => new Date(Date.now() + 30 * 86_400_000).toISOString();

export function target(model: Model, pick: number): { asset?: ModelAsset; id: string } {
  const all = [...model.live.map((asset) => asset.id), ...model.deleted];
  if (all.length === 0) return { id: '00000000-0000-4000-8000-000000000000' };
  const id = all[pick % all.length]!;
  return { id, asset: model.live.find((asset) => asset.id === id) };
}

export const slugTaken = (model: Model, slug: string, except?: string) => model.live.some((asset) => asset.slug === slug && asset.id !== except);

export function expect404(requirement: string, exchange: Exchange) {
  expectStatus(requirement, exchange, 404, 'NOT_FOUND');
}

/** The listing's state on the server must be the model's: read back after every step that may change it. */
export async function verifyState(ctx: CheckContext, requirement: string, asset: ModelAsset): Promise<void> {
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

export async function verifyGone(ctx: CheckContext, requirement: string, id: string): Promise<void> {
  expect404(requirement, await ctx.client.get(`/assets/${id}`, ctx.fixtures.seller));
}
