import { nodeApiReference } from '../bindings/node/reference/reference-assets.js';
import { marketkitVersion } from '../core/marketplace.js';
import { startLine, stopOnSignal } from './serve-start.js';
import { controlsPrefix } from '../testing/controls.js';
import { createTestMarketplace } from '../testing/test-marketplace.js';

export interface ServeTestControlsOptions {
  port: number;
  host: string;
  siteUrl?: string;
  serviceKey?: string;
  json: boolean;
}

/**
 * `marketkit serve --memory --test-controls`: the test kit on a real port, with its controls under
 * /__marketkit/ for clients in any language (docs/testing.md). Runs until SIGINT or SIGTERM.
 */
export async function serveTestControls(options: ServeTestControlsOptions, out: (line: string) => void): Promise<void> {
  const mk = createTestMarketplace({
    testControls: true,
    marketplace: {
      apiReference: nodeApiReference(),
      ...(options.siteUrl ? { siteUrl: options.siteUrl } : {}),
      ...(options.serviceKey ? { serviceKey: options.serviceKey } : {}),
    },
  });
  const running = await mk.listen({ port: options.port, host: options.host });
  const seller = await mk.seller();
  const base = options.siteUrl ?? running.url;
  const stopped = stopOnSignal(options.json ? null : out, () => mk.close());
  if (options.json) {
    out(startLine(base, { kind: 'memory' }, seller, { test_controls: `${base}${controlsPrefix}` }));
  } else {
    out(`MarketKit ${marketkitVersion} is serving ${base} for tests`);
    out(`  REST API       ${base}/api/v1`);
    out(`  MCP            ${base}/api/mcp`);
    out(`  Test controls  ${base}${controlsPrefix}  (reset, seed, fixtures, clock, faults, requests, events, webhooks, moderate; docs/testing.md)`);
    out(`  Storage        in memory, with a manual clock: POST ${controlsPrefix}clock moves it`);
    out(`  Dev seller     ${seller.username} (the seller fixture), token ${seller.token}`);
    out(`                 the same token on every start; GET ${controlsPrefix}fixtures lists every fixture's`);
    out('');
    out(`Try: curl -X POST ${base}${controlsPrefix}reset`);
    out('Stop with Ctrl-C.');
  }
  await stopped;
}
