/**
 * The one path of a change that has events (docs/webhooks.md, "The event"; docs/testing.md,
 * "Events"): the storage method writes the change and its outbox events in one transaction (for a
 * listing, a compare-and-set at the revision read, tried again from a fresh read when another
 * change came first); once it has committed, this process's webhook worker is nudged to send them
 * and EventsPort hears each one, derived from the outbox event itself.
 */
import { ApiError } from '../errors.js';
import type { ClockPort } from '../ports/clock.js';
import { noEvents, type EventsPort } from '../ports/events.js';
import type { IdsPort } from '../ports/ids.js';
import { applyChanges, type AssetChanges, type AssetRecord, type DeleteAssetResult, type ListingsPort, type OutboxEvent, type UpdateAssetResult } from '../ports/storage.js';
import { inProcessEvent } from './in-process-events.js';
import type { TracingPort } from '../ports/tracing.js';
import { maxTraceparentLength } from '../ports/webhook-records.js';

/** The ports a change goes through (the operations' Ports is one): a listing's compare-and-set writes, and who hears them. */
export interface ChangePorts<Storage = Pick<ListingsPort, 'updateAsset' | 'deleteAsset'>> {
  storage: Storage;
  clock: ClockPort;
  ids: IdsPort;
  /** Hears the committed events; absent where nobody listens (the CLI's own commands). */
  events?: EventsPort;
  /** Wakes this process's webhook worker, when one runs (core/webhooks/worker.ts). */
  nudgeDeliveries?: () => void;
  /** Where spans go, when tracing is on: the events of a change made in a request span carry its traceparent (causedHere). */
  tracing?: TracingPort;
}

/** How many times a change is tried from a fresh read while other changes keep coming first. */
export const changeAttempts = 5;

/** What an attempt answers when its compare-and-set found the record changed since it was read. */
export const stale: unique symbol = Symbol('stale');
export type Stale = typeof stale;

/**
 * Runs `attempt` until it answers something other than `stale`, at most `changeAttempts` times,
 * each from a fresh read; then 409 CONFLICT with `conflict` (what was changed meanwhile).
 */
export async function retryWhileStale<T>(attempt: () => Promise<T | Stale>, conflict: string): Promise<T> {
  for (let i = 0; i < changeAttempts; i++) {
    const result = await attempt();
    if (result !== stale) return result;
  }
  throw new ApiError('CONFLICT', conflict);
}

/**
 * Tells this process about events the store has committed: its webhook worker sends them now
 * rather than at its next poll, and EventsPort hears each (the same id, type, time and data as the
 * webhook). Call it only once the write that held them has resolved.
 */
export function committed(ports: Pick<ChangePorts, 'events' | 'nudgeDeliveries'>, events: readonly OutboxEvent[]): void {
  if (events.length === 0) return;
  ports.nudgeDeliveries?.();
  const listener = ports.events;
  // Nobody listens: the events' data is not parsed for nothing.
  if (!listener || listener === noEvents) return;
  for (const event of events) listener.emit(inProcessEvent(event));
}

/**
 * The events with the traceparent of the active span (the request's whose change writes them), so
 * that the delivery span links to it from whichever instance delivers (core/tracing/delivery-span.ts):
 * stored with the event, in the change's transaction. As given when tracing is off or no span is active.
 */
export function causedHere<E extends OutboxEvent>(ports: Pick<ChangePorts, 'tracing'>, events: E[]): E[] {
  const active = ports.tracing?.active();
  const traceparent = active ? ports.tracing!.inject(active) : undefined;
  if (!traceparent || traceparent.length > maxTraceparentLength) return events;
  return events.map((event) => ({ ...event, traceparent }));
}

/**
 * A change that is not a listing's compare-and-set (a new listing, an image, a token's revocation,
 * a test event) with its events, on the same path: `write` stores the change with the events it
 * is handed (`causedHere`'s, carrying the request's traceparent) in one transaction, and they are
 * heard (`committed`) only when `made` says the write made the change.
 */
export async function commitWithEvents<R>(ports: Pick<ChangePorts<unknown>, 'events' | 'nudgeDeliveries' | 'tracing'>, events: OutboxEvent[], write: (events: OutboxEvent[]) => Promise<R>, made: (result: R) => boolean): Promise<R> {
  const outbox = causedHere(ports, events);
  const result = await write(outbox);
  if (made(result)) committed(ports, outbox);
  return result;
}

/** The time of a change, by the clock: the listing's updated_at and every one of its events' time. */
export const changeTime = (ports: Pick<ChangePorts, 'clock'>): string => new Date(ports.clock.now()).toISOString();

/** The outbox events of a listing change, from the listing before it and after it and the change's time. */
export type ListingEvents = (before: AssetRecord, after: AssetRecord, at: string) => OutboxEvent[];

export type ListingUpdated = Extract<UpdateAssetResult, { outcome: 'updated' }>;

const notFound = () => new ApiError('NOT_FOUND', 'No listing with this id.');
const raced = 'The listing was changed by another request at the same time; retry.';

/**
 * One compare-and-set of `asset` at the revision it was read with: `changes` and the events made
 * from them, written together, then heard (`committed`); `stale` when another change came first.
 * A listing gone is 404 NOT_FOUND, a slug taken 409 CONFLICT.
 */
export async function commitListingChange(ports: ChangePorts, asset: AssetRecord, changes: AssetChanges, events: ListingEvents): Promise<ListingUpdated | Stale> {
  const made = events(asset, applyChanges(asset, changes), changes.updated_at);
  const result = await commitWithEvents(ports, made, (outbox) => ports.storage.updateAsset(asset.id, asset.revision, changes, outbox), (written) => written.outcome === 'updated');
  if (result.outcome === 'stale') return stale;
  if (result.outcome === 'missing') throw notFound();
  if (result.outcome === 'slug_taken') throw new ApiError('CONFLICT', 'This slug is already taken.');
  return result;
}

/**
 * The one way the core changes a listing: `read` loads it (the caller's own, or any for a
 * moderator), `decide` computes the change from what was read and the change's time (or refuses),
 * and the change is committed with its events at the revision read; when another change came in
 * between, it starts over from a fresh read, so that `decide` always judges what is stored.
 */
export async function changeListing(
  ports: ChangePorts,
  read: () => Promise<AssetRecord>,
  decide: (asset: AssetRecord, at: string) => Promise<Omit<AssetChanges, 'updated_at'>> | Omit<AssetChanges, 'updated_at'>,
  events: ListingEvents,
): Promise<ListingUpdated> {
  return retryWhileStale(async () => {
    const asset = await read();
    const at = changeTime(ports);
    const changes: AssetChanges = { ...(await decide(asset, at)), updated_at: at };
    return commitListingChange(ports, asset, changes, events);
  }, raced);
}

/**
 * Deletes a listing with its events, as changeListing changes one: `read` loads it, `check`
 * refuses what may not be deleted, and the deletion is committed at the revision read.
 */
export async function deleteListing(
  ports: ChangePorts,
  read: () => Promise<AssetRecord>,
  check: (asset: AssetRecord) => void,
  events: (asset: AssetRecord, at: string) => OutboxEvent[],
): Promise<Extract<DeleteAssetResult, { outcome: 'deleted' }>> {
  return retryWhileStale(async () => {
    const asset = await read();
    check(asset);
    const result = await commitWithEvents(ports, events(asset, changeTime(ports)), (outbox) => ports.storage.deleteAsset(asset.id, asset.revision, outbox), (written) => written.outcome === 'deleted');
    if (result.outcome === 'stale') return stale;
    if (result.outcome === 'missing') throw notFound();
    return result;
  }, raced);
}
