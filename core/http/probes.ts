/**
 * The probes a process supervisor or load balancer asks (docs/operations.md, docs/deploy.md):
 * `/livez`, whether the process serves at all (200 without asking any store: a restart would not
 * bring a database back), and `/readyz`, whether this instance can serve requests now (storage,
 * blobs and the rate limiter each answer: 503 naming which failed, or, storage and the limiter,
 * stayed unanswered a second at a time for more than slowStoreGraceMs; a blob store that is only
 * slow never takes an instance out), from a result at most a second old. They sit at the root, outside /api/v1, beside the seed's `/api/v1/health`,
 * which stays as it was.
 */
import { ApiError } from '../errors.js';
import { checkReadiness, type Readiness } from '../operations/health.js';
import type { Ports } from '../operations/context.js';
import type { Exchange, Surface } from '../pipeline/frame.js';
import { jsonResponse, type CoreResponse } from '../pipeline/request.js';

export const probePaths: ReadonlySet<string> = new Set(['/livez', '/readyz']);

const noStore = { 'cache-control': 'no-store' };

/** How old a readiness answer may be: a balancer asks every few hundred milliseconds, and each check is a round trip to every store. */
export const readinessMaxAgeMs = 1000;

/**
 * How long a store that answered before may be slow (no answer within the check's second) before
 * the instance is not ready. A slow shared store is slow for every instance at once: failing the
 * checks then takes every instance out, and the balancer answers 503 to everyone instead of late
 * answers (the 30-minute soak, docs/operations.md). A store that fails (refused, an error) is not
 * ready at once, as is one slow for longer than this.
 */
export const slowStoreGraceMs = 5000;

/**
 * The checks whose slowness alone never makes an instance unready, however long: the blob store,
 * which only uploads, confirms and images need. A slow blob store is slow for every instance at
 * once (the 30-minute soak, run 7: s3rver answered HeadBucket after 1 to 2.3 s for minutes under
 * the uploads' multipart completions, and every instance's /readyz failed together), and taking
 * them all out turns late uploads into haproxy's 503 for every request, reads and MCP included.
 * A blob store that fails (an error: refused, wrong credentials, no bucket) still does: that may be
 * this instance's own configuration.
 */
export const slowAlwaysReady: ReadonlySet<string> = new Set(['blobs']);

export function probeSurface(ports: Pick<Ports, 'storage' | 'blobs' | 'rateLimiter' | 'clock'>): Surface {
  // The last result and its time, and the check under way: concurrent callers share one, and an
  // unauthenticated flood of /readyz costs the stores one round trip a second, not one a call.
  let last: { at: number; readiness: Readiness } | null = null;
  let running: Promise<Readiness> | null = null;
  // When each check last answered: a slow one counts as ready within slowStoreGraceMs of it.
  const answeredAt = new Map<string, number>();
  const judged = (readiness: Readiness, at: number): Readiness => {
    for (const [name, state] of Object.entries(readiness.checks)) if (state === 'ok') answeredAt.set(name, at);
    const fine = ([name, state]: [string, string]) => state === 'ok' || (state === 'slow' && (slowAlwaysReady.has(name) || at - (answeredAt.get(name) ?? -Infinity) < slowStoreGraceMs));
    return { ...readiness, ready: Object.entries(readiness.checks).every(fine) };
  };
  function readiness(): Promise<Readiness> {
    // A clock set back (an NTP step) makes the kept result stale, or it would be believed until the clock caught up.
    const age = last ? ports.clock.now() - last.at : -1;
    if (last && age >= 0 && age < readinessMaxAgeMs) return Promise.resolve(last.readiness);
    if (running) return running;
    // A result is as old as the moment its check began: one that took a second (a store slow to
    // answer) is already stale when it arrives, so the balancer's next check asks again instead of
    // being told the same failure, which counted one slow moment twice and took the instance out.
    const began = ports.clock.now();
    running = checkReadiness(ports)
      .then((result) => {
        last = { at: began, readiness: judged(result, began) };
        return last.readiness;
      })
      .finally(() => (running = null));
    return running;
  }

  async function serve(exchange: Exchange): Promise<CoreResponse> {
    const { request, path } = exchange;
    exchange.route = path;
    if (request.method !== 'GET') throw new ApiError('METHOD_NOT_ALLOWED', 'Use GET here.', { headers: { allow: 'GET' } });
    if (path === '/livez') return jsonResponse(200, { status: 'ok' }, noStore);
    const { ready, checks } = await readiness();
    if (ready) return jsonResponse(200, { status: 'ok', checks }, noStore);
    const failed = Object.entries(checks).filter(([, state]) => state !== 'ok').map(([name]) => name);
    // (Ready with a slow store: 200 above, its check saying 'slow'.)
    const refusal = new ApiError('SERVICE_UNAVAILABLE', `Not ready: ${failed.join(', ')} did not answer.`);
    return jsonResponse(refusal.status, { ...refusal.toBody(), checks }, { ...noStore, 'retry-after': '5' });
  }
  return { serves: (path) => probePaths.has(path), serve };
}
