/**
 * The gauges read from the stores at each scrape, not kept by counting: the webhook backlog and the
 * age of its oldest due delivery (one query, across every instance on the storage), and the
 * PostgreSQL pool of a storage that has one.
 */
import type { OutboxPort } from '../ports/storage.js';
import type { MarketplaceMetrics } from './marketplace-metrics.js';

interface PoolStats {
  poolStats(): { total: number; idle: number; waiting: number };
}

const hasPool = (storage: object): storage is PoolStats => typeof (storage as Partial<PoolStats>).poolStats === 'function';

/** Registers the store gauges; `storage` is the adapter as given (its pool is not part of the port). */
export function collectStoreGauges(metrics: MarketplaceMetrics, storage: Pick<OutboxPort, 'webhookBacklog'>, clock: { now(): number }): void {
  metrics.onCollect(async ({ webhookBacklog, webhookOldestDueSeconds, pool }) => {
    if (hasPool(storage)) {
      const { total, idle, waiting } = storage.poolStats();
      pool.idle.set(idle);
      pool.used.set(total - idle);
      pool.pending.set(waiting);
    }
    if (!storage.webhookBacklog) return;
    const now = clock.now();
    const { queued, oldestDueMs } = await storage.webhookBacklog(now);
    webhookBacklog.set(queued);
    webhookOldestDueSeconds.set(oldestDueMs === null ? 0 : Math.max(0, now - oldestDueMs) / 1000);
  });
}
