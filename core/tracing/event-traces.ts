/**
 * Which request caused each outbox event, so that its webhook deliveries' spans link to that
 * request's span. Kept in this process's memory, not in storage (no schema change): the link is
 * there when this instance delivers what it queued, which is the usual case (a change nudges this
 * instance's worker at once), and absent when another instance, or this one after a restart,
 * delivers it. Bounded: the oldest events are forgotten first.
 */
import type { TraceContext, TracingPort } from '../ports/tracing.js';

export interface EventTraces {
  /** Remembers the active span (the request's) as the cause of these events, when there is one. */
  remember(eventIds: readonly string[]): void;
  /** The context of the span that caused the event, when this process remembers it. */
  causeOf(eventId: string): TraceContext | undefined;
}

export function eventTraces(tracing: TracingPort, max = 10_000): EventTraces {
  const causes = new Map<string, TraceContext>();
  return {
    remember(eventIds) {
      const cause = tracing.active();
      if (!cause) return;
      for (const id of eventIds) {
        causes.set(id, cause);
        // A Map iterates in insertion order: the first key is the oldest.
        if (causes.size > max) causes.delete(causes.keys().next().value!);
      }
    },
    causeOf: (eventId) => causes.get(eventId),
  };
}
