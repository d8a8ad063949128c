export {
  createTestMarketplace,
  fixtureAccounts,
  DroppedConnection,
  type TestMarketplace,
  type TestMarketplaceOptions,
  type TestAccount,
  type TestClock,
  type TestModeration,
  type TestSnapshot,
  type FixtureName,
  type FixtureFunction,
  type Connection,
} from './test-marketplace.js';
export type { Seed } from './seed.js';
export type { Faults, FaultRule, FaultKind, FaultSchedule, FaultTarget, FaultHandle, FaultStatus } from './faults.js';
export type { RequestLog, LoggedRequest, RequestMatch } from './request-log.js';
export type { TestEvents, EventMatch } from './events.js';
export type { MarketplaceEvent, AssetEvent, AccountEvent } from '../core/ports/events.js';
export type { TestWebhooks, RecordedDelivery, WebhookMatch } from './webhooks.js';
export type { ListenOptions, ListeningKit } from './listen.js';
export { controlsPrefix } from './controls.js';
