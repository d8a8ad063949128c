/**
 * The metrics a marketplace keeps (docs/operations.md lists each with its meaning). HTTP metrics
 * follow OpenTelemetry's HTTP semantic conventions as Prometheus exports them
 * (`http.server.request.duration` -> `http_server_request_duration_seconds`, its attributes with
 * dots as underscores), plus the surface. Every label takes values from a bounded set:
 * route templates, status codes, tool names, limit classes; never a token, account or listing id.
 */
import type { LimitClass } from '../ports/rate-limit.js';
import { limitClasses } from '../rate-limits.js';
import { httpDurationBuckets, Registry, type CounterChild, type GaugeChild, type HistogramChild } from './registry.js';

export type SurfaceName = 'rest' | 'mcp' | 'admin' | 'blobs' | 'dashboard';
export type ToolOutcome = 'ok' | 'refused' | 'error';
export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed';

/** Methods named as they are; any other is `_OTHER`, as the conventions say, so that the label set stays bounded. */
const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface MarketplaceMetrics {
  /** One request answered: its surface, method, route template ('' when none matched), status and duration. */
  request(surface: SurfaceName, method: string, route: string, status: number, seconds: number): void;
  active(surface: SurfaceName): GaugeChild;
  toolCall(tool: string, outcome: ToolOutcome): void;
  rateLimitRefused(limitClass: LimitClass): void;
  authFailed(): void;
  cacheLookup(area: string): { hit: CounterChild; miss: CounterChild };
  delivered(outcome: DeliveryOutcome, count: number): void;
  uploadBytes: CounterChild;
  uploadsInProgress: GaugeChild;
  storageError: CounterChild;
  limiterError: CounterChild;
  /** Gauges read at each scrape (the webhook backlog, the pool): `collect` sets them. */
  onCollect(collect: (gauges: CollectedGauges) => void | Promise<void>): void;
  /** The text exposition. */
  render(onError?: (error: unknown) => void): Promise<string>;
}

export interface CollectedGauges {
  webhookBacklog: GaugeChild;
  webhookOldestDueSeconds: GaugeChild;
  pool: { idle: GaugeChild; used: GaugeChild; pending: GaugeChild };
}

export function createMarketplaceMetrics(version: string): MarketplaceMetrics {
  const registry = new Registry();
  registry.gauge('marketkit_build_info', 'The MarketKit version this instance runs (always 1).', ['version']).labels(version).set(1);
  const duration = registry.histogram(
    'http_server_request_duration_seconds',
    'Duration of HTTP server requests, until the answer is ready to send (a streamed body not included).',
    ['http_request_method', 'http_route', 'http_response_status_code', 'surface'],
    httpDurationBuckets,
  );
  const activeRequests = registry.gauge('http_server_active_requests', 'Requests being served now.', ['surface']);
  const tools = registry.counter('marketkit_mcp_tool_calls_total', 'MCP tools/call requests by tool and outcome (ok, refused: a tool result with isError, error: a JSON-RPC error).', ['tool', 'outcome']);
  const refusals = registry.counter('marketkit_rate_limit_refusals_total', 'Requests refused with 429 by limit class.', ['class']);
  const authFailures = registry.counter('marketkit_auth_failures_total', 'Failed authentications (bad, revoked or expired tokens and sessions, wrong service keys).');
  const hits = registry.counter('marketkit_read_cache_hits_total', 'Read cache lookups answered from the cache, by area.', ['area']);
  const misses = registry.counter('marketkit_read_cache_misses_total', 'Read cache lookups that went to storage, by area.', ['area']);
  const deliveries = registry.counter('marketkit_webhook_deliveries_total', 'Webhook delivery attempts by outcome (succeeded, retrying: failed and tried again later, failed: given up).', ['outcome']);
  const backlog = registry.gauge('marketkit_webhook_backlog', 'Webhook deliveries queued (pending or retrying), across every instance on this storage.');
  const oldestDue = registry.gauge('marketkit_webhook_oldest_due_age_seconds', 'How long the oldest delivery that is due now has been waiting (0 when none is due).');
  const uploadBytes = registry.counter('marketkit_upload_received_bytes_total', 'Bytes of uploads received and stored (signed-URL PUTs and tus PATCHes).');
  const uploadsInProgress = registry.gauge('marketkit_uploads_in_progress', 'Upload requests (PUT, PATCH) receiving bytes now.');
  const storageErrors = registry.counter('marketkit_storage_errors_total', 'Requests and jobs that failed because the storage could not be reached.');
  const limiterErrors = registry.counter('marketkit_rate_limiter_errors_total', 'Rate limiter calls that failed (its store could not be reached).');
  const connections = registry.gauge('marketkit_pg_pool_connections', 'PostgreSQL pool connections open, by state (idle, used); their sum is the pool size now.', ['state']);
  const pending = registry.gauge('marketkit_pg_pool_waiting_requests', 'Queries waiting for a PostgreSQL pool connection.');
  const collected: CollectedGauges = {
    webhookBacklog: backlog.labels(),
    webhookOldestDueSeconds: oldestDue.labels(),
    pool: { idle: connections.labels('idle'), used: connections.labels('used'), pending: pending.labels() },
  };

  // route -> method -> status -> surface, no string built per request; each route remembers the
  // series it last counted, so a run of like requests costs one map lookup, not four.
  const byRoute = new Map<string, { last: { method: string; status: number; surface: SurfaceName; child: HistogramChild } | undefined; byMethod: Map<string, Map<number, Map<SurfaceName, HistogramChild>>> }>();
  const refusalChildren = new Map<LimitClass, CounterChild>();
  const authChild = authFailures.labels();
  const toolChildren = new Map<string, Map<ToolOutcome, CounterChild>>();
  // Every class and outcome from the start, at 0: rate() over a series that appears later misses its first count.
  for (const limitClass of limitClasses) refusalChildren.set(limitClass, refusals.labels(limitClass));
  const deliveryChildren = new Map<DeliveryOutcome, CounterChild>((['succeeded', 'retrying', 'failed'] as const).map((outcome) => [outcome, deliveries.labels(outcome)]));

  return {
    request(surface, received, route, status, seconds) {
      const method = knownMethods.has(received) ? received : '_OTHER';
      let entry = byRoute.get(route);
      if (!entry) byRoute.set(route, (entry = { last: undefined, byMethod: new Map() }));
      const { last, byMethod } = entry;
      if (last && last.status === status && last.method === method && last.surface === surface) return last.child.observe(seconds);
      let byStatus = byMethod.get(method);
      if (!byStatus) byMethod.set(method, (byStatus = new Map()));
      let bySurface = byStatus.get(status);
      if (!bySurface) byStatus.set(status, (bySurface = new Map()));
      let child = bySurface.get(surface);
      if (!child) bySurface.set(surface, (child = duration.labels(method, route, String(status), surface)));
      entry.last = { method, status, surface, child };
      child.observe(seconds);
    },
    active: (surface) => activeRequests.labels(surface),
    toolCall(tool, outcome) {
      let byOutcome = toolChildren.get(tool);
      if (!byOutcome) toolChildren.set(tool, (byOutcome = new Map()));
      let child = byOutcome.get(outcome);
      if (!child) byOutcome.set(outcome, (child = tools.labels(tool, outcome)));
      child.inc();
    },
    rateLimitRefused(limitClass) {
      let child = refusalChildren.get(limitClass);
      if (!child) refusalChildren.set(limitClass, (child = refusals.labels(limitClass)));
      child.inc();
    },
    authFailed: () => authChild.inc(),
    cacheLookup: (area) => ({ hit: hits.labels(area), miss: misses.labels(area) }),
    delivered: (outcome, count) => deliveryChildren.get(outcome)!.inc(count),
    uploadBytes: uploadBytes.labels(),
    uploadsInProgress: uploadsInProgress.labels(),
    storageError: storageErrors.labels(),
    limiterError: limiterErrors.labels(),
    onCollect: (collect) => registry.onCollect(() => collect(collected)),
    render: (onError) => registry.render(onError),
  };
}
