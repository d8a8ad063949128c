import { ConfigurationError, defaultOnError, outagesOncePerMinute } from './errors.js';
import type { Admin } from './admin/accounts.js';
import { coreRequestFromFetch, fetchResponseFromCore } from './http/fetch.js';
import type { CoreRequest, CoreResponse } from './pipeline/request.js';
import { createModeration, type LeasedRelease, type Moderation } from './moderation/moderation.js';
import { createVersionModeration, type VersionModeration } from './operations/version-moderation.js';
import type { Ports, Settings } from './operations/context.js';
import type { VersionRecord } from './ports/versions.js';
import { sweepUploads, type SweepReport } from './operations/upload-sweep.js';
import { purgeExpiredKeys } from './pipeline/idempotency.js';
import { parseOptions } from './options.js';
import { deliverDue, runWorker, type DeliveryPass, type RunningWorker } from './webhooks/worker.js';
import { countDeliveries, countingStorageErrors } from './metrics/counted-ports.js';
import type { MarketplaceMetrics } from './metrics/marketplace-metrics.js';
import { marketplacePorts, marketplaceSettings, type MarketplaceConfig } from './marketplace-ports.js';
import { marketplaceSurfaces, type MarketplaceOnError } from './marketplace-surfaces.js';

export const marketkitVersion = '0.1.0';

import { OptionsSchema, type MarketplaceOptions } from './marketplace-options.js';
export type { MarketplaceOptions } from './marketplace-options.js';

export interface Marketplace {
  /** The runtime-neutral handler the bindings call. */
  handle(request: CoreRequest): Promise<CoreResponse>;
  /** The same as a WHATWG fetch handler. `basePath` is the prefix it is mounted under, if any. */
  fetch(request: Request, basePath?: string): Promise<Response>;
  /** Whether a request path belongs to the marketplace (for middleware that passes others on). */
  owns(path: string): boolean;
  admin: Admin;
  /**
   * The transitions that belong to the marketplace, not the seller: approve, reject and
   * requestChanges (pending), archive (published), and releaseDue() for the job runner.
   */
  moderation: Pick<Moderation, 'approve' | 'reject' | 'requestChanges' | 'archive' | 'releaseDue'> & {
    /** The moderators' side of versions of published listings (docs/moderation.md, "Versions"). */
    versions: VersionModeration;
  };
  /**
   * Housekeeping for the job runner (serve runs it on a timer): sweepUploads() removes the blobs of
   * uploads never confirmed once their URL expired (after uploadGraceSeconds), of deleted listings
   * and of replaced files, and the files of versions superseded longer than supersededRetentionSeconds
   * (but the live version's rollback target). One instance at a time runs it (a lease in storage);
   * see docs/security.md.
   */
  maintenance: {
    sweepUploads(): Promise<SweepReport>;
    /**
     * releaseDue() on one instance at a time (the storage lease 'release-due', held by this
     * instance): `{ ran: false }` while another instance holds it. For the timer every instance
     * runs: releaseOnInterval(marketplace.maintenance, ...). Each release is still exactly once.
     * Scheduled versions whose release_at came go live in the same run (`versions`).
     */
    releaseDue(): Promise<LeasedRelease & { versions: VersionRecord[] }>;
    /** Removes idempotency keys older than a day (docs/rest.md, "Safe retries"); how many. Any instance may run it. */
    purgeRetryKeys(): Promise<number>;
    /** Removes webhook events (with their delivery logs) older than webhooks.retentionDays whose deliveries are all finished; how many. */
    purgeWebhookEvents(): Promise<number>;
  };
  /** The webhook delivery worker (docs/webhooks.md), with the webhooks.sender given. */
  webhooks: {
    /** One pass: claims the deliveries due now, sends them, records each attempt. */
    deliverDue(): Promise<DeliveryPass>;
    /**
     * Delivers until stopped: every `pollMs` (default 1000), at once while there is a backlog, and
     * right after a change this marketplace makes. Any number of instances may run one.
     */
    startWorker(options?: { pollMs?: number }): RunningWorker;
  };
  /**
   * The metrics in Prometheus's text format (docs/operations.md), for an application that serves
   * them itself (`content-type: metricsContentType`); '' when created with `metrics: false`.
   */
  metrics(): Promise<string>;
  ports: Ports;
  settings: Settings;
}

/**
 * A marketplace over the given adapters. Throws a ConfigurationError that says what to change.
 * The steps: the ports and settings (marketplace-ports.ts), moderation, the surfaces in their
 * frame (marketplace-surfaces.ts), then the jobs' entry points (maintenance, webhooks).
 */
export function createMarketplace(options: MarketplaceOptions): Marketplace {
  const config = parseOptions(OptionsSchema, options, 'marketkit createMarketplace');
  const { ports, metrics, sessionKeys } = marketplacePorts(config, marketkitVersion);
  const settings = marketplaceSettings(config, marketkitVersion);
  const moderation = createModeration(ports, { onSubmit: settings.onSubmit });
  const versionModeration = createVersionModeration(ports);
  // Who holds this instance's job leases (the upload sweep, the release of scheduled listings) and claims its webhook deliveries.
  const instanceId = ports.ids.uuid();
  const onError = countingStorageErrors(metrics, outagesOncePerMinute(config.onError ?? defaultOnError, ports.clock));
  const { handle, admin, owns } = marketplaceSurfaces({ config, ports, settings, sessionKeys, moderation, instanceId, onError, metrics });
  return {
    handle,
    async fetch(request, basePath = '') {
      return fetchResponseFromCore(await handle(coreRequestFromFetch(request, basePath)));
    },
    owns,
    admin,
    moderation: {
      approve: moderation.approve,
      reject: moderation.reject,
      requestChanges: moderation.requestChanges,
      archive: moderation.archive,
      releaseDue: moderation.releaseDue,
      versions: versionModeration,
    },
    maintenance: {
      sweepUploads: () => sweepUploads(ports, settings, instanceId),
      releaseDue: async () => {
        const listings = await moderation.releaseDueUnderLease(instanceId);
        // Under the same lease: one instance at a time makes the due versions live (each once either way).
        return { ...listings, versions: listings.ran ? await versionModeration.releaseDue() : [] };
      },
      purgeRetryKeys: () => purgeExpiredKeys(ports),
      purgeWebhookEvents: () => ports.storage.purgeWebhookEvents(new Date(ports.clock.now() - config.webhooks.retentionDays * 86_400_000).toISOString(), 1000),
    },
    webhooks: webhookJobs(config, ports, metrics, instanceId, onError),
    metrics: () => (metrics ? metrics.render((error) => onError(error, { method: 'METRICS', path: 'metrics', requestId: '' })) : Promise.resolve('')),
    ports,
    settings,
  };
}

/** The webhook delivery worker's pass, over the sender given; a ConfigurationError without one. */
function webhookPass(config: MarketplaceConfig, ports: Ports, metrics: MarketplaceMetrics | undefined, instanceId: string) {
  const sender = config.webhooks.sender;
  if (!sender) throw new ConfigurationError('marketkit createMarketplace', 'webhooks.sender is needed to deliver webhooks: pass nodeWebhookSender() from marketkit/bindings/node (or your own sender)');
  const batch = 20;
  const settings = { timeoutMs: config.webhooks.timeoutMs, batch };
  const traced = ports.tracing ? { tracing: ports.tracing } : {};
  const pass = () => deliverDue({ storage: ports.storage, clock: ports.clock, ids: ports.ids, sender, holder: instanceId, ...traced }, settings);
  return { pass: metrics ? () => pass().then((done) => countDeliveries(metrics, done)) : pass, batch };
}

function webhookJobs(config: MarketplaceConfig, ports: Ports, metrics: MarketplaceMetrics | undefined, instanceId: string, onError: MarketplaceOnError): Marketplace['webhooks'] {
  return {
    deliverDue: () => webhookPass(config, ports, metrics, instanceId).pass(),
    startWorker({ pollMs = 1000 } = {}) {
      const { pass, batch } = webhookPass(config, ports, metrics, instanceId);
      const worker = runWorker(pass, { pollMs, batch, onError: (error) => onError(error, { method: 'JOB', path: 'webhook deliveries', requestId: '' }) });
      ports.nudgeDeliveries = worker.nudge;
      return {
        nudge: worker.nudge,
        async stop() {
          if (ports.nudgeDeliveries === worker.nudge) delete ports.nudgeDeliveries;
          await worker.stop();
        },
      };
    },
  };
}
