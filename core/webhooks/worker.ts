/**
 * The delivery worker (docs/webhooks.md, "Delivery guarantees"): claims due deliveries with a
 * lease, signs each per Standard Webhooks, sends it through the sender port, and records the
 * attempt, which schedules the next one or ends the delivery. Any number of workers, in any
 * number of processes, share the work through the storage's claims; one that dies leaves its
 * leases to run out, and another sends what it held (at least once).
 */
import type { ClockPort } from '../ports/clock.js';
import type { IdsPort } from '../ports/ids.js';
import type { ClaimedDelivery, OutboxPort, StoredEvent, WebhookAttempt, WebhookAttemptOutcome } from '../ports/storage.js';
import type { WebhookResponse, WebhookSenderPort } from '../ports/webhook-sender.js';
import { maxDeliveryAttempts, retryDelayMs } from './schedule.js';
import { signatureHeader } from './signing.js';
import type { TracingPort } from '../ports/tracing.js';
import { tracedDelivery, type DeliveryTrace } from '../tracing/delivery-span.js';

export interface WorkerSettings {
  /** Each attempt's deadline. */
  timeoutMs: number;
  /** Deliveries claimed per pass, sent at the same time. */
  batch: number;
}

export interface WorkerDeps {
  storage: Pick<OutboxPort, 'claimWebhookDeliveries' | 'finishWebhookAttempt'>;
  clock: ClockPort;
  ids: IdsPort;
  sender: WebhookSenderPort;
  /** Who claims: one id per worker. */
  holder: string;
  /** Each attempt as a span, linked to the request that caused its event (core/tracing/delivery-span.ts), when tracing is on. */
  tracing?: TracingPort;
}

/** What one pass did. */
export interface DeliveryPass {
  attempted: number;
  succeeded: number;
  retrying: number;
  failed: number;
}

export const userAgent = 'MarketKit-Webhooks/1';

/**
 * The body of a delivery, built from the stored event so that every attempt and redelivery sends
 * the same bytes: `data` is spliced in as the text it was stored as.
 */
export function deliveryBody(event: StoredEvent): string {
  return `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.created_at)},"account_id":${JSON.stringify(event.account_id)},"sequence":${event.sequence},"data":${event.data}}`;
}

/**
 * A lease outlives the attempt it covers (the timeout) and its recording, with room to spare: past
 * it, the attempt is taken for lost and another worker sends the delivery again.
 */
export const leaseFor = (timeoutMs: number) => timeoutMs + 15_000;

/** An attempt's answer in words, for the log and a disabled endpoint's reason. */
export function describeAnswer(attempt: WebhookAttempt): string {
  return attempt.status_code !== null ? `HTTP ${attempt.status_code}` : (attempt.error ?? 'no answer');
}

/** A random number in [0, 1) from the ids port (seeded in the testing kit). */
function randomUnit(ids: IdsPort): number {
  const [a = 0, b = 0, c = 0, d = 0] = ids.randomBytes(4);
  return (((a << 24) | (b << 16) | (c << 8) | d) >>> 0) / 2 ** 32;
}

/** How an attempt ends its delivery, by the answer and the schedule. */
export function outcomeOf(claimed: ClaimedDelivery, attempt: WebhookAttempt, nowMs: number, random: number): WebhookAttemptOutcome {
  if (attempt.status_code !== null && attempt.status_code >= 200 && attempt.status_code < 300) return { result: 'succeeded', attempt };
  const made = claimed.delivery.attempts.length + 1;
  const delay = retryDelayMs(made, random);
  if (delay !== null) return { result: 'retry', attempt, nextAttemptMs: nowMs + delay };
  return {
    result: 'failed',
    attempt,
    disableReason: `Disabled after every attempt failed for about three days (${maxDeliveryAttempts} attempts of one delivery, none to this endpoint succeeded since its first); the last answer: ${describeAnswer(attempt)}.`,
  };
}

type AttemptResult = WebhookAttemptOutcome['result'] | 'lost';

/** Sends one claimed delivery and records the attempt, in a span of its own when tracing is on. */
function attemptDelivery(deps: WorkerDeps, settings: WorkerSettings, claimed: ClaimedDelivery): Promise<AttemptResult> {
  if (!deps.tracing) return sendDelivery(deps, settings, claimed);
  return tracedDelivery(deps.tracing, claimed, (trace) => sendDelivery(deps, settings, claimed, trace));
}

async function sendDelivery(deps: WorkerDeps, settings: WorkerSettings, claimed: ClaimedDelivery, trace?: DeliveryTrace): Promise<AttemptResult> {
  const { event, endpoint } = claimed;
  const nowMs = deps.clock.now();
  const timestamp = Math.floor(nowMs / 1000);
  const body = deliveryBody(event);
  // The previous secret signs too until it expires, so that a receiver not yet given the new one verifies.
  const secrets = [endpoint.secret, ...(endpoint.previous_secret && endpoint.previous_secret_expires_at && Date.parse(endpoint.previous_secret_expires_at) > nowMs ? [endpoint.previous_secret] : [])];
  const headers = {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': await signatureHeader(secrets, event.id, timestamp, body),
    // Outside what is signed (id, timestamp, body): a receiver that traces continues the delivery's trace.
    ...(trace?.traceparent ? { traceparent: trace.traceparent } : {}),
  };
  let answer: WebhookResponse;
  try {
    answer = await deps.sender.send({ url: endpoint.url, headers, body, timeoutMs: settings.timeoutMs });
  } catch (error) {
    // The port must not throw; one that does still gets its attempt recorded.
    answer = { error: error instanceof Error ? error.message : String(error), latencyMs: 0 };
  }
  const attempt: WebhookAttempt = {
    at: new Date(nowMs).toISOString(),
    status_code: 'status' in answer ? answer.status : null,
    error: 'error' in answer ? answer.error.slice(0, 500) : null,
    latency_ms: Math.max(0, Math.round(answer.latencyMs)),
  };
  const outcome = outcomeOf(claimed, attempt, nowMs, randomUnit(deps.ids));
  const recorded = await deps.storage.finishWebhookAttempt(claimed.delivery.id, deps.holder, outcome);
  // Not recorded: the lease ran out and another worker took it over, or the endpoint was disabled meanwhile.
  const result = recorded ? outcome.result : 'lost';
  trace?.seen(attempt, result);
  return result;
}

/** One pass: claims what is due now (at most `batch`) and sends it all at once. */
export async function deliverDue(deps: WorkerDeps, settings: WorkerSettings): Promise<DeliveryPass> {
  const claimed = await deps.storage.claimWebhookDeliveries({ holder: deps.holder, nowMs: deps.clock.now(), leaseMs: leaseFor(settings.timeoutMs), limit: settings.batch });
  const results = await Promise.all(claimed.map((c) => attemptDelivery(deps, settings, c)));
  return {
    attempted: claimed.length,
    succeeded: results.filter((r) => r === 'succeeded').length,
    retrying: results.filter((r) => r === 'retry').length,
    failed: results.filter((r) => r === 'failed').length,
  };
}

export interface RunningWorker {
  /** Runs a pass soon (changes this process made have deliveries due now). */
  nudge(): void;
  /** Stops; resolves once the pass under way, if any, has finished. */
  stop(): Promise<void>;
}

/**
 * Runs passes one after another: right away while a pass finds a full batch (a backlog), soon
 * after a nudge, and otherwise every `pollMs` (deliveries another instance queued, retries that
 * became due). A failed pass goes to `onError`; the next one tries again.
 */
export function runWorker(pass: () => Promise<DeliveryPass>, options: { pollMs: number; batch: number; onError: (error: unknown) => void }): RunningWorker {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  const schedule = (ms: number) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(start, ms);
    (timer as { unref?: () => void }).unref?.();
  };
  function start() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    again = false;
    running = pass()
      .then((done) => {
        if (done.attempted >= options.batch) again = true;
      }, options.onError)
      .finally(() => {
        running = null;
        schedule(again ? 0 : options.pollMs);
      });
  }
  schedule(0);
  return {
    nudge() {
      if (running) again = true;
      else schedule(0);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
