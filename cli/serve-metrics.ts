/**
 * `marketkit serve --metrics-port`: the metrics in Prometheus's text format on a listener of their
 * own (docs/operations.md), never on the public port: an operator's scraper reaches it, clients
 * do not. Off unless asked for; then the marketplace counts (createMarketplace's `metrics`).
 */
import { createServer } from 'node:http';
import * as v from 'valibot';
import { PortNumber, UsageError } from './args.js';
import { metricsContentType } from '../core/metrics/registry.js';
import type { Marketplace } from '../core/marketplace.js';

export const metricsFlags = {
  options: {
    'metrics-port': { type: 'string' },
    'metrics-host': { type: 'string' },
  } as const,
  help: [
    ['--metrics-port <n>', 'Serve GET /metrics (Prometheus text format) on this port, a listener of its own (env MARKETKIT_METRICS_PORT; default off; never the public port; docs/operations.md).'],
    ['--metrics-host <addr>', 'Address the metrics listener binds (env MARKETKIT_METRICS_HOST; default 127.0.0.1).'],
  ] as [string, string][],
  entries: {
    'metrics-port': v.optional(PortNumber),
    'metrics-host': v.optional(v.pipe(v.string(), v.minLength(1, 'metrics-host must not be empty')), '127.0.0.1'),
  },
  defaults(env: NodeJS.ProcessEnv): Record<string, string> {
    return Object.fromEntries(
      Object.entries({ 'metrics-port': env.MARKETKIT_METRICS_PORT, 'metrics-host': env.MARKETKIT_METRICS_HOST }).filter((entry): entry is [string, string] => !!entry[1]),
    );
  },
};

/** Refuses a metrics port that is the public one (0 excepted: each picks its own free port). */
export function refuseMetricsOnPublicPort(values: { port: number; 'metrics-port'?: number | undefined }): void {
  const metricsPort = values['metrics-port'];
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === values.port) {
    throw new UsageError(`--metrics-port ${metricsPort} is the public port (--port): the metrics get a listener of their own; pick another port`);
  }
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/** Listens on host:port; GET (or HEAD) /metrics answers the marketplace's metrics, anything else 404. */
export function serveMetrics(marketplace: Pick<Marketplace, 'metrics'>, host: string, port: number): Promise<MetricsListener> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'application/json', ...(path === '/metrics' ? { allow: 'GET, HEAD' } : {}) });
      res.end(JSON.stringify(path === '/metrics' ? { error: 'Use GET here.', code: 'METHOD_NOT_ALLOWED' } : { error: 'This listener serves /metrics only.', code: 'NOT_FOUND' }));
      return;
    }
    marketplace.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': metricsContentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '5' });
        res.end(JSON.stringify({ error: 'The metrics could not be gathered; retry shortly.', code: 'SERVICE_UNAVAILABLE' }));
      },
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address() as { port: number };
      const shown = host.includes(':') ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${address.port}/metrics`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
