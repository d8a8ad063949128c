/**
 * The probes a process supervisor or load balancer asks (docs/operations.md, docs/deploy.md):
 * `/livez`, whether the process serves at all (200 without asking any store: a restart would not
 * bring a database back), and `/readyz`, whether this instance can serve requests now (storage,
 * blobs and the rate limiter each answer within a second; 503 naming which did not). They sit at
 * the root, outside /api/v1, beside the seed's `/api/v1/health`, which stays as it was.
 */
import { ApiError } from '../errors.js';
import { checkReadiness } from '../operations/health.js';
import type { Ports } from '../operations/context.js';
import type { Exchange, Surface } from '../pipeline/frame.js';
import { jsonResponse, type CoreResponse } from '../pipeline/request.js';

export const probePaths: ReadonlySet<string> = new Set(['/livez', '/readyz']);

const noStore = { 'cache-control': 'no-store' };

export function probeSurface(ports: Pick<Ports, 'storage' | 'blobs' | 'rateLimiter' | 'clock'>): Surface {
  async function serve(exchange: Exchange): Promise<CoreResponse> {
    const { request, path } = exchange;
    exchange.route = path;
    if (request.method !== 'GET') throw new ApiError('METHOD_NOT_ALLOWED', 'Use GET here.', { headers: { allow: 'GET' } });
    if (path === '/livez') return jsonResponse(200, { status: 'ok' }, noStore);
    const { ready, checks } = await checkReadiness(ports);
    if (ready) return jsonResponse(200, { status: 'ok', checks }, noStore);
    const failed = Object.entries(checks).filter(([, state]) => state !== 'ok').map(([name]) => name);
    const refusal = new ApiError('SERVICE_UNAVAILABLE', `Not ready: ${failed.join(', ')} did not answer.`);
    return jsonResponse(503, { ...refusal.toBody(), checks }, { ...noStore, 'retry-after': '5' });
  }
  return { serves: (path) => probePaths.has(path), serve };
}
