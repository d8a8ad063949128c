import type { Marketplace } from '../core/marketplace.js';
import type { ConnectionLimits } from '../bindings/limits.js';

export interface RuntimeServer {
  /** The site URL it listens on: `http://127.0.0.1:8787`. */
  url: string;
  runtime: 'node' | 'bun' | 'deno';
  close(): Promise<void>;
}

/**
 * Serves the marketplace with the binding of the runtime this runs on: Bun.serve on Bun, node:http
 * on Node and on Deno. Deno.serve cannot close a connection whose client keeps sending a body it
 * gave up on, nor time headers or idle connections; Deno's node:http enforces every limit against
 * slow clients (docs/security.md, "Time limits and connections"), so serve uses it there. Only
 * the chosen binding's module is loaded. The limits are the binding's defaults unless given.
 */
export async function serveOnRuntime(marketplace: Marketplace, options: { port: number; host: string } & ConnectionLimits): Promise<RuntimeServer> {
  const runtime = currentRuntime();
  if (runtime === 'bun') {
    const { serve } = await import('../bindings/bun/index.js');
    return { ...(await serve(marketplace, options)), runtime };
  }
  const { serve } = await import('../bindings/node/index.js');
  return { ...(await serve(marketplace, options)), runtime };
}

/** The runtime this command runs on: Bun and Deno by their globals, Node otherwise. */
export function currentRuntime(): RuntimeServer['runtime'] {
  const global = globalThis as { Bun?: unknown; Deno?: unknown };
  if (global.Bun !== undefined) return 'bun';
  return global.Deno !== undefined ? 'deno' : 'node';
}
