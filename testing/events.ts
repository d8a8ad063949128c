import type { AssetStatus } from '../core/domain/asset-states.js';
import type { EventsPort, MarketplaceEvent } from '../core/ports/events.js';

export type EventMatch = Partial<Pick<MarketplaceEvent, 'id' | 'type' | 'account_id' | 'subject_id' | 'asset_id' | 'owner_id' | 'from' | 'to'>> | ((event: MarketplaceEvent) => boolean);

const matches = (match: EventMatch, event: MarketplaceEvent) =>
  typeof match === 'function' ? match(event) : Object.entries(match).every(([key, value]) => event[key as keyof MarketplaceEvent] === value);

export interface TestEvents {
  /** The events since the last reset, oldest first; those matching `match` if given. */
  list(match?: EventMatch): MarketplaceEvent[];
  /**
   * The first event since the last reset that matches, waiting for it if it has not happened yet.
   * Rejects after `timeoutMs` real milliseconds (default 2000), naming the events seen.
   */
  waitFor(match: EventMatch, options?: { timeoutMs?: number }): Promise<MarketplaceEvent>;
  /** Resolves once the listing is in `status` ("wait until the asset is published"). */
  untilStatus(assetId: string, status: AssetStatus, options?: { timeoutMs?: number }): Promise<void>;
  /** Calls `listener` for every event from now on; returns the unsubscribe function. */
  subscribe(listener: (event: MarketplaceEvent) => void): () => void;
}

/** The events port of a test marketplace: a log, waiters and subscribers. */
export function recordingEvents(currentStatus: (assetId: string) => Promise<AssetStatus | null>): { port: EventsPort; api: TestEvents; clear(): void } {
  let log: MarketplaceEvent[] = [];
  const listeners = new Set<(event: MarketplaceEvent) => void>();
  const api: TestEvents = {
    list: (match) => (match ? log.filter((e) => matches(match, e)) : [...log]),
    waitFor(match, { timeoutMs = 2000 } = {}) {
      const seen = log.find((e) => matches(match, e));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          unsubscribe();
          const described = typeof match === 'function' ? 'the predicate' : JSON.stringify(match);
          reject(new Error(`marketkit/testing events.waitFor: no event matching ${described} within ${timeoutMs} ms; seen: ${log.map((e) => `${e.type}(${e.subject_id})`).join(', ') || 'none'}`));
        }, timeoutMs);
        const unsubscribe = api.subscribe((event) => {
          if (!matches(match, event)) return;
          clearTimeout(timer);
          unsubscribe();
          resolve(event);
        });
      });
    },
    async untilStatus(assetId, status, options) {
      if ((await currentStatus(assetId)) === status) return;
      // An event emitted during the read above is in the log, which waitFor reads first.
      await api.waitFor({ asset_id: assetId, to: status }, options);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return {
    port: {
      emit(event) {
        log.push(event);
        for (const listener of [...listeners]) {
          try {
            listener(event);
          } catch (error) {
            // The port must not throw into the marketplace; a test's broken listener is reported instead.
            console.error('marketkit/testing: an events listener threw:', error);
          }
        }
      },
    },
    api,
    clear: () => {
      log = [];
    },
  };
}
