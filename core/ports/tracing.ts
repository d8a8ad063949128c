/**
 * Traces, as a port: the core names spans and says where they start and end; an adapter makes them
 * with a tracing library (bindings/node/ports/opentelemetry.ts, over `@opentelemetry/api`), so that the
 * core loads none. Without one, `noTracing`: no span and nothing on the request path.
 */

export type SpanKind = 'server' | 'client' | 'internal' | 'producer' | 'consumer';

export type SpanAttributes = Record<string, string | number | boolean>;

/** A place in a trace (a span's, or a caller's from its traceparent), as the adapter keeps it: opaque to the core. */
export type TraceContext = object;

export interface SpanOptions {
  kind: SpanKind;
  attributes?: SpanAttributes;
  /** The parent span's context (from extract() or a span); a new trace when absent. */
  parent?: TraceContext;
  /** Spans this one follows from without being their child (a webhook delivery and the request that caused it). */
  links?: readonly TraceContext[];
}

/** How a span ended: its final name and attributes, once known, and whether it failed. */
export interface SpanEnd {
  name?: string;
  attributes?: SpanAttributes;
  /** The span failed (status ERROR): the error, or a message when there is no error to record. */
  error?: unknown;
}

export interface Span {
  /** The W3C trace id (32 hex digits); '' when there is none (no SDK and no incoming trace). */
  readonly traceId: string;
  /** The context with this span as the parent: for its children, links and inject(). */
  readonly context: TraceContext;
  end(how?: SpanEnd): void;
}

export interface TracingPort {
  startSpan(name: string, options: SpanOptions): Span;
  /** Runs `fn` with `context` active, so that spans the traced ports start within it are its children. */
  withContext<T>(context: TraceContext, fn: () => T): T;
  /** The active context when it holds a span (a request's, a delivery's); undefined otherwise. */
  active(): TraceContext | undefined;
  /** The context a W3C `traceparent` (with its `tracestate`) names; undefined when it is not a valid one. */
  extract(traceparent: string | undefined, tracestate?: string): TraceContext | undefined;
  /** The `traceparent` of a context; undefined when it holds no valid span. */
  inject(context: TraceContext): string | undefined;
  /**
   * False while nothing would record a span (an API with no SDK registered yet): the frame then
   * opens no request span, so that tracing that goes nowhere costs a request next to nothing.
   * Asked per request (an SDK may be registered later). Absent: always true.
   */
  live?(): boolean;
}

/** A traceparent's parts (W3C Trace Context, version 00 and later versions read as 00); undefined when invalid. */
export function parseTraceparent(header: string | undefined): { traceId: string; spanId: string; flags: number } | undefined {
  const found = header ? /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(header.trim()) : null;
  if (!found) return undefined;
  const [, version, traceId, spanId, flags, rest] = found as unknown as [string, string, string, string, string, string | undefined];
  // Version ff is invalid; version 00 has nothing after the flags; an all-zero id is invalid.
  if (version === 'ff' || (version === '00' && rest !== undefined) || /^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, flags: parseInt(flags, 16) };
}
