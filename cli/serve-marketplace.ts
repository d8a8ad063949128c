/**
 * `marketkit serve`'s third step: the marketplace on the stores it opened (cli/serve-stores.ts),
 * with the flags turned into the marketplace's options.
 */
import { memoryBlobs, memoryStorage, memoryStudio } from '../adapters/memory/index.js';
import { nodeHashing } from '../bindings/node/ports/hashing.js';
import { nodeApiReference } from '../bindings/node/reference/reference-assets.js';
import { nodeWebhookSender } from '../bindings/node/ports/webhook-sender.js';
import { createMarketplace, type Marketplace } from '../core/marketplace.js';
import type { TracingPort } from '../core/ports/tracing.js';
import { sizeFlags } from './size-flags.js';
import type { ServeOptions } from './serve-command.js';
import type { ServeLog } from './serve-log-format.js';
import type { createErrorLog } from './serve-log.js';
import type { ServeSetup, ServeStores } from './serve-stores.js';

export interface ServeMarketplaceParts {
  options: ServeOptions;
  setup: ServeSetup;
  stores: ServeStores;
  log: ServeLog;
  errorLog: ReturnType<typeof createErrorLog>;
  tracing: TracingPort | undefined;
  /** The listen address, once listening (with port 0 it is known only then; until then no request comes). */
  listenUrl: () => string | undefined;
}

export function serveMarketplace({ options, setup, stores, log, errorLog, tracing, listenUrl }: ServeMarketplaceParts): Marketplace {
  const { secrets, serviceKey } = setup;
  const { pg, data, s3, blobsChoice, studio, uploadStates, rateLimiter, rateLimits } = stores;
  // Local webhook targets (http, loopback) for local testing only: the same rule when saved and when sent.
  const webhookTargets = { allowHttp: options['webhooks-allow-local'], allowPrivateAddresses: options['webhooks-allow-local'] };
  return createMarketplace({
    onError: errorLog.onError,
    ...(tracing ? { tracing } : {}),
    storage: pg?.storage ?? data?.storage ?? memoryStorage(),
    studio: pg?.studio ?? studio ?? memoryStudio(),
    ...(uploadStates ? { uploadStates } : {}),
    // node:crypto for the single PUT's SHA-256 (Bun and Deno have it too): several times the WASM hasher's rate.
    hashing: nodeHashing(),
    blobs: s3 ?? pg?.blobs ?? (blobsChoice !== 'memory' && data ? data.blobs : memoryBlobs()),
    // The environment's secrets first (the same on every instance), else the data directory's.
    ...(secrets.signingSecret ?? data?.signingSecret ? { signingSecret: secrets.signingSecret ?? data?.signingSecret } : {}),
    ...(secrets.sessionKey ?? data?.sessionKey ? { sessionKey: secrets.sessionKey ?? data?.sessionKey } : {}),
    ...(rateLimiter ? { rateLimiter } : rateLimits ? { rateLimits } : {}),
    apiReference: nodeApiReference(),
    ...(options['site-url'] ? { siteUrl: options['site-url'] } : {}),
    // Without a site URL, issued URLs are built on the listen address, or on a Host listed here (never another Host).
    allowedHosts: options['allowed-host'],
    // Browser apps on these origins: REST and its PUTs; the MCP endpoint too, by name (it takes no *).
    corsOrigins: options['cors-origin'],
    mcp: { allowedOrigins: options['cors-origin'].filter((origin) => origin !== '*') },
    listenUrl,
    // The admin surface exists only when a service key is given (docs/moderation.md).
    ...(serviceKey ? { serviceKey } : {}),
    ...(options['no-dashboard'] ? {} : { dashboard: { selfSignUp: options['self-sign-up'] } }),
    ...(options['storage-quota'] ? { storageQuotaBytes: options['storage-quota'] } : {}),
    ...(options['upload-grace'] ? { uploadGraceSeconds: options['upload-grace'] } : {}),
    ...(options['upload-lease'] ? { uploadLeaseSeconds: options['upload-lease'] } : {}),
    ...(options['superseded-retention'] ? { supersededRetentionSeconds: options['superseded-retention'] } : {}),
    ...sizeFlags.toOptions(options),
    // Off unless asked for: a marketplace reviews what it publishes.
    ...(options['auto-approve'] ? { moderation: { onSubmit: 'auto-approve' as const } } : {}),
    webhooks: { ...webhookTargets, sender: nodeWebhookSender(webhookTargets), timeoutMs: options['webhook-timeout'] * 1000 },
    // Counted only when someone can read them: nothing on the request path otherwise.
    metrics: options['metrics-port'] !== undefined,
    ...(log.enabled('info') ? { onRequest: log.answered } : {}),
  });
}
