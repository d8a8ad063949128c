import type { Marketplace } from '../core/marketplace.js';
import type { ConnectionLimits } from '../bindings/limits.js';

export interface RuntimeServer {
  /** The site URL it listens on: `http://127.0.0.1:8787`. */
  url: string;
  runtime: 'node' | 'bun' | 'deno';
  close(): Promise<void>;
}

/**
 * Serves the marketplace with the binding of the runtime this runs on: Bun.serve on Bun,
 * Deno.serve on Deno, node:http on Node. Only the chosen binding's module is loaded. The limits
 * against slow clients (docs/security.md) are the binding's defaults unless given.
 */
export async function serveOnRuntime(marketplace: Marketplace, options: { port: number; host: string } & ConnectionLimits): Promise<RuntimeServer> {
  const global = globalThis as { Bun?: unknown; Deno?: unknown };
  if (global.Bun !== undefined) {
    const { serve } = await import('../bindings/bun/index.js');
    return { ...(await serve(marketplace, options)), runtime: 'bun' };
  }
  if (global.Deno !== undefined) {
    const { serve } = await import('../bindings/deno/index.js');
    return { ...(await serve(marketplace, options)), runtime: 'deno' };
  }
  const { serve } = await import('../bindings/node/index.js');
  return { ...(await serve(marketplace, options)), runtime: 'node' };
}
