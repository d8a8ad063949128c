/**
 * A webhook delivery attempt as its own span (docs/operations.md, "Traces"): a new trace, kind
 * client (an HTTP POST out), linked to the span of the request whose change queued the event, from
 * the traceparent stored with the event (core/changes/commit.ts, causedHere), whichever instance
 * delivers it and however often; no link when it has none. Its storage calls are its children,
 * and the POST carries its `traceparent`, so a receiver that traces continues it.
 */
import type { ClaimedDelivery, WebhookAttempt } from '../ports/webhook-records.js';
import type { SpanAttributes, TracingPort } from '../ports/tracing.js';

/** What the traced send is given: the traceparent to send, and where to tell the attempt made and how it ended. */
export interface DeliveryTrace {
  traceparent: string | undefined;
  seen(attempt: WebhookAttempt, result: string): void;
}

export async function tracedDelivery<R>(tracing: TracingPort, claimed: ClaimedDelivery, send: (trace: DeliveryTrace) => Promise<R>): Promise<R> {
  const { delivery, event, endpoint } = claimed;
  const cause = event.traceparent ? tracing.extract(event.traceparent) : undefined;
  const attributes: SpanAttributes = {
    'http.request.method': 'POST',
    'marketkit.webhook.event_type': event.type,
    'marketkit.webhook.event_id': event.id,
    'marketkit.webhook.delivery_id': delivery.id,
    'marketkit.webhook.attempt': delivery.attempts.length + 1,
  };
  // The host only: a URL's path or query may hold the receiver's own secret.
  const url = URL.canParse(endpoint.url) ? new URL(endpoint.url) : undefined;
  if (url) Object.assign(attributes, { 'server.address': url.hostname, 'url.scheme': url.protocol.slice(0, -1) });
  const span = tracing.startSpan('webhook deliver', { kind: 'client', attributes, ...(cause ? { links: [cause] } : {}) });
  let ended: { attributes: SpanAttributes; error?: unknown } | undefined;
  const trace: DeliveryTrace = {
    traceparent: tracing.inject(span.context),
    seen(attempt, result) {
      const done: SpanAttributes = { 'marketkit.webhook.outcome': result };
      if (attempt.status_code !== null) done['http.response.status_code'] = attempt.status_code;
      const failed = attempt.status_code === null || attempt.status_code >= 300;
      if (failed) done['error.type'] = attempt.status_code !== null ? String(attempt.status_code) : 'no_answer';
      ended = { attributes: done, ...(failed ? { error: { message: attempt.error ?? `HTTP ${attempt.status_code}` } } : {}) };
    },
  };
  try {
    const result = await tracing.withContext(span.context, () => send(trace));
    span.end(ended ?? {});
    return result;
  } catch (error) {
    span.end({ ...ended, error });
    throw error;
  }
}
