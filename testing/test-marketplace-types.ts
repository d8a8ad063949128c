/**
 * The testing kit's public shape (docs/testing.md): its options and what createTestMarketplace
 * returns. A file of its own so that the kit's parts (controls.ts) can name the kit without
 * importing the module that builds it.
 */
import type { Marketplace, MarketplaceOptions } from '../core/marketplace.js';
import type { CoreRequest, CoreResponse } from '../core/pipeline/request.js';
import type { Connection } from './kit-request.js';
import type { AssetRecord } from '../core/ports/storage.js';
import type { VersionRecord } from '../core/ports/versions.js';
import type { Scope } from '../core/domain/scopes.js';
import type { RateLimits } from '../core/rate-limits.js';
import type { TestEvents } from './events.js';
import type { Faults } from './faults.js';
import type { FixtureFunction, FixtureName, TestAccount } from './fixtures.js';
import type { TestSnapshot } from './kit-state.js';
import type { ListeningKit, ListenOptions } from './listen.js';
import type { RequestLog } from './request-log.js';
import type { Seed } from './seed.js';
import type { TestWebhooks } from './webhooks.js';

export interface TestMarketplaceOptions {
  /** The starting state beyond the fixture accounts; reset() comes back to it. */
  seed?: Seed;
  /** The clock's time at the seed (default: the real time when created). */
  now?: Date | number | string;
  /** The address the in-process `fetch` answers (default http://marketkit.test). */
  baseUrl?: string;
  /** Rate limits (default: the marketplace's defaults); reset() empties every window. */
  rateLimits?: Partial<RateLimits>;
  /** More options of createMarketplace (moderation.onSubmit, uploadUrlTtlSeconds, serviceKey, ...). */
  marketplace?: Omit<Partial<MarketplaceOptions>, 'storage' | 'blobs' | 'clock' | 'events' | 'rateLimiter' | 'rateLimits'>;
  /** Serve the test controls under /__marketkit/ (what `marketkit serve --memory --test-controls` does). */
  testControls?: boolean;
  /**
   * Seed of the ids, tokens and upload-signing secret (default 1): every run makes the same ones,
   * and reset() repeats them. `'random'` for random ones (crypto.randomUUID).
   */
  idSeed?: number | 'random';
}

export interface TestClock {
  now(): number;
  date(): Date;
  /** Moves time forward and runs what became due (scheduled listings are released, webhook retries sent); returns the released ones. */
  advance(ms: number): Promise<AssetRecord[]>;
  /** Sets the time (forward or back) and runs what became due. */
  set(time: Date | number | string): Promise<AssetRecord[]>;
}

export interface TestModeration {
  approve(assetId: string): Promise<AssetRecord>;
  reject(assetId: string, reason: string): Promise<AssetRecord>;
  requestChanges(assetId: string, reason: string): Promise<AssetRecord>;
  archive(assetId: string): Promise<AssetRecord>;
  /** Releases scheduled listings that are due by the clock (advance() does this itself). */
  releaseDue(): Promise<AssetRecord[]>;
  /** The moderators' decisions on versions of published listings (docs/moderation.md, "Versions"), each event delivered before it returns. */
  versions: {
    approve(versionId: string): Promise<VersionRecord>;
    reject(versionId: string, reason: string): Promise<VersionRecord>;
    requestChanges(versionId: string, reason: string): Promise<VersionRecord>;
    /** Makes the listing's previous version live again. */
    rollback(assetId: string, reason?: string): Promise<VersionRecord>;
  };
}


export interface TestMarketplace extends Record<FixtureName, FixtureFunction> {
  /** The address the in-process fetch answers: `http://marketkit.test`. */
  readonly url: string;
  /** `${url}/api/v1`. */
  readonly api: string;
  /** Settles once the fixtures and the seed are written (every method waits for it itself). */
  readonly ready: Promise<void>;
  /** A fetch function (the same arguments as the global one) answered in process, without a port. */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** The kit's handler in the core's request model, for bindings (listen() uses it). */
  handle(request: CoreRequest, connection?: Connection): Promise<CoreResponse>;
  /** Serves the kit on a real port (127.0.0.1, a free port by default); close() or mk.close() stops it. */
  listen(options?: ListenOptions): Promise<ListeningKit>;
  /** Closes every server listen() started. */
  close(): Promise<void>;
  /** A seeded account (or a fixture, by username) with a token; a new token when `scopes` are given. */
  account(username: string, options?: { scopes?: Scope[] }): Promise<TestAccount>;
  /** Replaces the seed: the fixtures plus `seed` become the state that reset() returns to. */
  seed(seed: Seed): Promise<Record<string, TestAccount>>;
  clock: TestClock;
  /** Back to the seed: storage, blobs, clock and rate limits; faults, the request log, the events and the webhook log cleared. */
  reset(): Promise<void>;
  snapshot(): Promise<TestSnapshot>;
  /** Puts back a snapshot's state (the faults, request log and events stay as they are). */
  restore(snapshot: TestSnapshot): Promise<void>;
  moderate: TestModeration;
  requests: RequestLog;
  faults: Faults;
  events: TestEvents;
  /**
   * The webhook deliveries the kit made (docs/testing.md, "Webhooks"): due deliveries are sent
   * after every request that may change something, every moderation and every clock move, before
   * that call returns; recorded in process and answered 200 unless the test says otherwise.
   */
  webhooks: TestWebhooks;
  /** The marketplace underneath (admin, ports, settings), for what the kit does not cover. */
  marketplace: Marketplace;
}
