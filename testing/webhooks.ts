/**
 * The testing kit's webhooks (docs/testing.md, "Webhooks"): a sender that records every attempt
 * in process and answers as the test says (200 by default), or sends it for real to a URL the
 * test gives. The marketplace signs, schedules and retries exactly as in production.
 */
import type { WebhookRequest, WebhookResponse, WebhookSenderPort } from '../core/ports/webhook-sender.js';
import type { DeliveryPass } from '../core/webhooks/worker.js';

/** One attempt the kit made. */
export interface RecordedDelivery {
  /** The endpoint's URL. */
  url: string;
  /** The headers sent: content-type, webhook-id, webhook-timestamp, webhook-signature, ... */
  headers: Record<string, string>;
  /** The body as sent: what the signature covers. */
  body: string;
  /** The body parsed: `{ id, type, timestamp, account_id, sequence, data }`. */
  event: { id: string; type: string; timestamp: string; account_id: string; sequence: number; data: Record<string, unknown> };
  /** What the receiver answered (the kit's responder, or the URL given to sendTo), or why there was no answer. */
  answer: { status: number } | { error: string };
  /** When, by the kit's clock. */
  at: string;
}

export type WebhookMatch = { type?: string; url?: string; id?: string } | ((delivery: RecordedDelivery) => boolean);

export interface TestWebhooks {
  /** Every attempt since the last reset, oldest first; those matching `match` if given. */
  list(match?: WebhookMatch): RecordedDelivery[];
  /**
   * The first attempt since the last reset that matches, waiting for it if it has not come yet
   * (deliveries are sent right after the change that queued them). Rejects after `timeoutMs` real
   * milliseconds (default 2000), naming what was delivered.
   */
  waitFor(match: WebhookMatch, options?: { timeoutMs?: number }): Promise<RecordedDelivery>;
  /** Sends what is due now by the kit's clock, and resolves once every attempt is recorded (clock.advance() does this too). */
  deliver(): Promise<DeliveryPass>;
  /** How the simulated receiver answers: a status for every attempt, or a function of the attempt. 200 by default; reset() restores it. */
  respondWith(answer: number | ((delivery: Omit<RecordedDelivery, 'answer'>) => number)): void;
  /** Sends every attempt, signed as it is, to this URL (a local receiver of the test) instead of answering in process; null to stop. */
  sendTo(url: string | null): void;
  /** Forgets the attempts recorded so far (the responder and sendTo stay). */
  clear(): void;
}

const matches = (match: WebhookMatch, delivery: RecordedDelivery) =>
  typeof match === 'function'
    ? match(delivery)
    : (match.type === undefined || delivery.event.type === match.type) && (match.url === undefined || delivery.url === match.url) && (match.id === undefined || delivery.event.id === match.id);

/** The kit's sender and the API over what it recorded. `now` is the kit's clock; `deliver` runs a pass of the marketplace's worker. */
export function recordingWebhooks(now: () => number, deliver: () => Promise<DeliveryPass>): { sender: WebhookSenderPort; api: TestWebhooks; clear(): void } {
  let log: RecordedDelivery[] = [];
  let responder: number | ((delivery: Omit<RecordedDelivery, 'answer'>) => number) = 200;
  let target: string | null = null;
  const listeners = new Set<(delivery: RecordedDelivery) => void>();

  async function answerOf(request: WebhookRequest, attempt: Omit<RecordedDelivery, 'answer'>): Promise<RecordedDelivery['answer']> {
    if (target === null) return { status: typeof responder === 'number' ? responder : responder(attempt) };
    try {
      const response = await fetch(target, { method: 'POST', headers: request.headers, body: request.body, redirect: 'manual', signal: AbortSignal.timeout(request.timeoutMs) });
      await response.body?.cancel();
      return { status: response.status };
    } catch (error) {
      return { error: (error as Error).name === 'TimeoutError' ? 'timeout' : (error as Error).message };
    }
  }

  const sender: WebhookSenderPort = {
    async send(request): Promise<WebhookResponse> {
      const started = Date.now();
      const attempt = { url: request.url, headers: { ...request.headers }, body: request.body, event: JSON.parse(request.body), at: new Date(now()).toISOString() };
      const answer = await answerOf(request, attempt);
      const delivery = { ...attempt, answer };
      log.push(delivery);
      for (const listener of [...listeners]) listener(delivery);
      return { ...answer, latencyMs: Date.now() - started };
    },
  };

  const api: TestWebhooks = {
    list: (match) => (match ? log.filter((d) => matches(match, d)) : [...log]),
    waitFor(match, { timeoutMs = 2000 } = {}) {
      const seen = log.find((d) => matches(match, d));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const listener = (delivery: RecordedDelivery) => {
          if (!matches(match, delivery)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(delivery);
        };
        const timer = setTimeout(() => {
          listeners.delete(listener);
          const described = typeof match === 'function' ? 'the predicate' : JSON.stringify(match);
          reject(new Error(`marketkit/testing webhooks.waitFor: no delivery matching ${described} within ${timeoutMs} ms; delivered: ${log.map((d) => `${d.event.type} to ${d.url}`).join(', ') || 'none'}`));
        }, timeoutMs);
        listeners.add(listener);
      });
    },
    deliver,
    respondWith(answer) {
      if (typeof answer === 'number' && !(Number.isInteger(answer) && answer >= 100 && answer <= 599)) throw new TypeError('marketkit/testing webhooks.respondWith: a status from 100 to 599, or a function returning one');
      responder = answer;
    },
    sendTo(url) {
      if (url !== null) new URL(url);
      target = url;
    },
    clear() {
      log = [];
    },
  };
  return {
    sender,
    api,
    clear() {
      log = [];
      responder = 200;
      target = null;
    },
  };
}
