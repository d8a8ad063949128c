import type { Marketplace } from '../../core/marketplace.js';

/**
 * A WHATWG fetch handler, `(request) => Promise<Response>`, for any host that speaks it. `basePath`
 * is the prefix the handler is mounted under, if any.
 */
export function fetchHandler(marketplace: Marketplace, options: { basePath?: string } = {}): (request: Request) => Promise<Response> {
  return (request) => marketplace.fetch(request, options.basePath);
}
