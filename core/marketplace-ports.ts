/**
 * createMarketplace's first steps (core/marketplace.ts): the ports every operation is given, each
 * wrapped once (capabilities, tracing, counting, the read cache), and the settings from the options.
 */
import type * as v from 'valibot';
import { jwtSessionVerifier } from './auth/jwt.js';
import { createSessionKeys, type SessionKeys } from './auth/session-keys.js';
import { defaultOnError } from './errors.js';
import type { OptionsSchema } from './marketplace-options.js';
import { countedRateLimiter } from './metrics/counted-ports.js';
import { createMarketplaceMetrics, type MarketplaceMetrics } from './metrics/marketplace-metrics.js';
import { collectStoreGauges } from './metrics/store-gauges.js';
import { guardedPolicy } from './moderation/moderation.js';
import type { Ports, Settings } from './operations/context.js';
import { systemClock } from './ports/clock.js';
import { noEvents } from './ports/events.js';
import { webCryptoIds } from './ports/ids.js';
import type { UploadStatePort } from './ports/upload-state.js';
import { memoryRateLimiter } from './rate-limits.js';
import { createReadCache } from './read-cache.js';
import { withCapabilities } from './storage-capabilities.js';
import { tracedPort } from './tracing/traced-ports.js';
import { memoryUploadStates } from './uploads/memory-upload-states.js';

/** createMarketplace's options once checked, the defaults filled in. */
export type MarketplaceConfig = v.InferOutput<typeof OptionsSchema>;

export interface MarketplacePorts {
  ports: Ports;
  metrics: MarketplaceMetrics | undefined;
  sessionKeys: SessionKeys;
}

/** The upload-state port a storage adapter offers beside itself (the SQL storages' `uploadStates`), if any. */
function storageUploadStates(storage: object): UploadStatePort | undefined {
  const offered = (storage as { uploadStates?: unknown }).uploadStates;
  return offered && typeof (offered as UploadStatePort).advance === 'function' ? (offered as UploadStatePort) : undefined;
}

export function marketplacePorts(config: MarketplaceConfig, version: string): MarketplacePorts {
  const storage = withCapabilities(config.storage, { leases: config.leases, idempotency: config.idempotency });
  const metrics = config.metrics ? createMarketplaceMetrics(version) : undefined;
  const { tracing } = config;
  // Traced under the read cache and the counting: a cache hit makes no storage span; a refusal still makes a limiter span.
  const limiter = config.rateLimiter ?? memoryRateLimiter(config.rateLimits);
  const rateLimiter = tracing ? tracedPort(limiter, 'rate_limiter', tracing) : limiter;
  const tracedStorage = tracing ? tracedPort(storage, 'storage', tracing) : storage;
  const ports: Ports = {
    storage: tracedStorage,
    blobs: tracing ? tracedPort(config.blobs, 'blobs', tracing) : config.blobs,
    clock: config.clock ?? systemClock,
    ids: config.ids ?? webCryptoIds,
    rateLimiter: metrics ? countedRateLimiter(rateLimiter, metrics) : rateLimiter,
    events: config.events ?? noEvents,
    ...(config.studio ? { studio: config.studio } : {}),
    // Uploads in progress: where they were given, else the storage's own (a SQL storage offers them, so
    // every instance on its database finds them), else this process's memory.
    uploadStates: config.uploadStates ?? storageUploadStates(config.storage) ?? memoryUploadStates(),
    ...(config.hashing ? { hashing: config.hashing } : {}),
    sessions: [],
    reads: createReadCache(tracedStorage, metrics),
    ...(metrics ? { metrics } : {}),
    ...(tracing ? { tracing } : {}),
  };
  if (metrics) collectStoreGauges(metrics, config.storage, ports.clock);
  const sessionKeys = createSessionKeys(config.sessionKey, ports.clock, ports.ids);
  // This server's own sessions first, then the configured identity providers, then custom verifiers.
  ports.sessions.push(sessionKeys.verifier, ...(config.jwtIssuers ?? []).map((issuer) => jwtSessionVerifier(issuer, ports.clock)), ...(config.sessions ?? []));
  return { ports, metrics, sessionKeys };
}

export function marketplaceSettings(config: MarketplaceConfig, version: string): Settings {
  return {
    version,
    uploadUrlTtlMs: config.uploadUrlTtlSeconds * 1000,
    maxFileBytes: config.maxFileBytes,
    maxImageBytes: config.maxImageBytes,
    uploadGraceMs: config.uploadGraceSeconds * 1000,
    uploadLeaseMs: config.uploadLeaseSeconds * 1000,
    supersededRetentionMs: config.supersededRetentionSeconds * 1000,
    storageQuotaBytes: config.storageQuotaBytes ?? null,
    onSubmit: guardedPolicy(config.moderation.onSubmit, config.onError ?? defaultOnError),
    webhookTargets: { allowHttp: config.webhooks.allowHttp, allowPrivateAddresses: config.webhooks.allowPrivateAddresses },
    dashboard: config.dashboard
      ? { basePath: config.dashboard.basePath, sessionIdleMs: config.dashboard.sessionIdleSeconds * 1000, sessionMaxMs: config.dashboard.sessionMaxSeconds * 1000, signInLinkMs: config.dashboard.signInLinkSeconds * 1000, ...(config.dashboard.authenticate ? { authenticate: config.dashboard.authenticate } : {}), ...(config.dashboard.signInUrl ? { signInUrl: config.dashboard.signInUrl } : {}), selfSignUp: config.dashboard.selfSignUp }
      : null,
  };
}
