import type { AssetStatus } from '../domain/asset-states.js';

export interface AssetEvent {
  type: `asset.${string}`;
  asset_id: string;
  owner_id: string;
  from: AssetStatus | null;
  to: AssetStatus | null;
  at: string;
}

/** Receives state-change events. Must not throw; a slow subscriber slows the request. */
export interface EventsPort {
  emit(event: AssetEvent): void;
}

export const noEvents: EventsPort = { emit: () => {} };
