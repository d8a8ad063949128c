/**
 * Safe retries (docs/rest.md, "Safe retries"): a write sent with an idempotency key runs once per
 * account and key, and a retry of the same request gets the answer the first one got, without
 * running anything. REST takes the key from the `Idempotency-Key` header, MCP from a tool's
 * `idempotency_key` argument; both come here through runOperation, after the checks that are not
 * kept (authentication, rate limit, scope, guard, input), so a refusal of those frees the key for
 * a corrected retry.
 */
import { ApiError, invalidInput, isApiError, statusOf, type ErrorBody, type ErrorCode } from '../errors.js';
import { sha256Hex } from '../domain/sha256.js';
import type { OperationContext } from '../operations/context.js';
import type { KeptAnswer } from '../ports/records.js';

/** How long a key and its answer are kept: a day, as clients retry within minutes and Stripe keeps 24 hours. */
export const idempotencyTtlMs = 24 * 60 * 60 * 1000;

/**
 * How long a run holds its key before a retry may run the request again: a run that outlives it
 * was on a process that died. Far above any request's own time limits (bodies: 30 s).
 */
export const idempotencyLeaseMs = 60 * 1000;

/** Seconds a retry that meets its request still running is told to wait. */
const inUseRetryAfterSeconds = 1;

/** A request's idempotency key and where it came from (`Idempotency-Key` on REST, `idempotency_key` on MCP). */
export interface RetryKey {
  key: string;
  surface: 'rest' | 'mcp';
}

/** The header or argument as a key: 1 to 255 printable ASCII characters; 400 naming the field otherwise. */
export function retryKeyOf(value: unknown, surface: RetryKey['surface']): RetryKey {
  const field = surface === 'rest' ? 'Idempotency-Key' : 'idempotency_key';
  if (typeof value !== 'string' || !/^[\x20-\x7e]{1,255}$/.test(value)) {
    throw invalidInput(field, 'must be 1 to 255 printable ASCII characters (a UUID is a good key)');
  }
  return { key: value, surface };
}

/**
 * Refusals that are the outcome of running the request, kept: not found (404), the state it found
 * (409: CONFLICT and its kin, INVALID_STATUS, NOT_DRAFT...) and a precondition it lacks (422: NO_FILE
 * and its kin, EMPTY_FILE, CHECKSUM_MISMATCH...).
 */
const keptStatuses: ReadonlySet<number> = new Set((['NOT_FOUND', 'CONFLICT', 'NO_FILE'] as const).map(statusOf));

/**
 * Runs `run` for the first request with this key and keeps its answer; a retry of the same request
 * gets that answer back (`replayed`) or, while the first still runs, 409 IDEMPOTENCY_KEY_IN_USE; the
 * key on another request is 422 IDEMPOTENCY_KEY_REUSED. What `run` answers is kept when it succeeded
 * or was refused with 404, 409 or 422; anything else (a 5xx, a store that failed) frees the key.
 */
export async function runOnce<R extends { json: string; value: unknown }>(
  ctx: OperationContext,
  retry: RetryKey,
  request: { operation: string; input: unknown },
  run: () => Promise<R>,
  replay: (json: string) => R,
): Promise<R> {
  const { storage, clock, ids } = ctx.ports;
  const accountId = ctx.caller.account.id;
  // REST and MCP keep their keys apart (docs/rest.md, "Safe retries"): an MCP key is stored under a
  // prefix no REST key can have (a line feed is not printable ASCII), so one key on both is two keys.
  const key = retry.surface === 'rest' ? retry.key : `mcp\n${retry.key}`;
  const fingerprint = sha256Hex(`${retry.surface}\n${request.operation}\n${JSON.stringify(request.input)}`);
  const holder = ids.uuid();
  const nowMs = clock.now();
  const claim = await storage.claimIdempotencyKey({ accountId, key, fingerprint, holder, nowMs, leaseMs: idempotencyLeaseMs, ttlMs: idempotencyTtlMs });
  switch (claim.outcome) {
    case 'mismatch':
      throw new ApiError('IDEMPOTENCY_KEY_REUSED', undefined, { details: [{ path: retry.surface === 'rest' ? 'Idempotency-Key' : 'idempotency_key', message: 'was used for another request' }] });
    case 'running':
      throw new ApiError('IDEMPOTENCY_KEY_IN_USE', undefined, { headers: { 'retry-after': String(inUseRetryAfterSeconds) } });
    case 'done':
      return replayAnswer(claim.answer, replay);
  }
  let result: R;
  try {
    result = await run();
  } catch (error) {
    const kept = isApiError(error) && keptStatuses.has(error.status) ? { status: error.status, body: JSON.stringify(error.toBody()) } : null;
    // The request's own error is the answer; a key that could not be finished frees itself when its lease runs out.
    await storage.finishIdempotencyKey(accountId, key, holder, kept).catch(() => {});
    throw error;
  }
  // The write is done: its answer is kept before it goes out, tried again while the store is away
  // (a database restarting: a retry meanwhile hears 409 IDEMPOTENCY_KEY_IN_USE, then the kept
  // answer), since a key left running would free itself with its lease and run the write twice.
  // Kept it never is, the answer still goes: failing the request would make the client retry a
  // write that happened.
  await keepAnswer(() => storage.finishIdempotencyKey(accountId, key, holder, { status: 200, body: keptJson(result) }));
  return result;
}

/** How long a done write's answer is tried again while its store is away: well inside the lease, so that no retry runs it again meanwhile. */
const keepAnswerForMs = idempotencyLeaseMs / 2;

/** Runs `finish` until it succeeds, waiting 100 ms, doubled up to 2 s, between tries; gives up after keepAnswerForMs. */
async function keepAnswer(finish: () => Promise<unknown>): Promise<void> {
  const giveUpAt = Date.now() + keepAnswerForMs;
  for (let wait = 100; ; wait = Math.min(wait * 2, 2000)) {
    try {
      await finish();
      return;
    } catch {
      // The store is away: tried again below, until giveUpAt (the key then frees itself with its lease).
      if (Date.now() + wait > giveUpAt) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * Fields of an answer that show a secret once (a webhook's signing `secret`, a `token`): never
 * kept, so the idempotency table holds no secret. A replay answers null in their place and is
 * otherwise the first answer (docs/rest.md, "Safe retries"): whoever lost the first answer rotates
 * the secret for a new one.
 */
const shownOnce = ['secret', 'token'] as const;

/** The JSON to keep for a result: its own, or a copy without the secrets it shows once. */
function keptJson(result: { json: string; value: unknown }): string {
  const { value } = result;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return result.json;
  const secrets = shownOnce.filter((field) => typeof (value as Record<string, unknown>)[field] === 'string');
  if (secrets.length === 0) return result.json;
  const withheld: Record<string, unknown> = { ...value };
  for (const field of secrets) withheld[field] = null;
  return JSON.stringify(withheld);
}

/** Header a replayed answer carries (REST); MCP's replay is the same tool result. */
export const replayedHeader = { 'idempotent-replayed': 'true' } as const;

function replayAnswer<R>(answer: KeptAnswer, replay: (json: string) => R): R {
  if (answer.status < 400) return replay(answer.body);
  const body = JSON.parse(answer.body) as ErrorBody;
  throw new ApiError(body.code as ErrorCode, body.error, { ...(body.details ? { details: body.details } : {}), headers: { ...replayedHeader } });
}

const purgeBatch = 1000;

/**
 * Removes the idempotency keys whose day is over (a claim treats them as free already; this only
 * gives their space back). Safe on every instance at once: removing a removed key does nothing.
 */
export async function purgeExpiredKeys(ports: Pick<OperationContext['ports'], 'storage' | 'clock'>): Promise<number> {
  let removed = 0;
  for (;;) {
    const batch = await ports.storage.purgeIdempotencyKeys(ports.clock.now(), purgeBatch);
    removed += batch;
    if (batch < purgeBatch) return removed;
  }
}
