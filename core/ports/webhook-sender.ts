/**
 * Sends one webhook attempt over the network (docs/webhooks.md, "Safety"). The core signs and
 * schedules; the sender only sends, under the operator's target rules: `nodeWebhookSender()`
 * (marketkit/bindings/node) checks every resolved address and connects to the one it checked,
 * follows no redirect and reads at most a small part of the answer; the testing kit records.
 */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  /** The JSON body, sent as it is (its bytes are what the signature covers). */
  body: string;
  /** The whole attempt's deadline: resolving, connecting, sending and the answer's status. */
  timeoutMs: number;
}

/** What came back: the HTTP status, or why there is none (`timeout`, a refused address, a network error). Real milliseconds taken. */
export type WebhookResponse = { status: number; latencyMs: number } | { error: string; latencyMs: number };

export interface WebhookSenderPort {
  /** MUST NOT throw: every failure is an `error` answer. MUST NOT follow redirects. */
  send(request: WebhookRequest): Promise<WebhookResponse>;
}
