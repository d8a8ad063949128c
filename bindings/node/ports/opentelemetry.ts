/**
 * The tracing port (core/ports/tracing.ts) over the OpenTelemetry API, the way library authors are
 * told to use it: MarketKit calls `@opentelemetry/api` only, and the spans go nowhere (a no-op) until
 * the application registers an SDK (docs/operations.md, "Traces"). `@opentelemetry/api` is an
 * optional peer dependency, loaded here, when this is called, and never by anything else: an
 * application that does not trace does not need it installed.
 */
import type { Context, Span as OtelSpan, SpanContext } from '@opentelemetry/api';
import { marketkitVersion } from '../../../core/marketplace.js';
import { parseTraceparent, type Span, type SpanEnd, type SpanKind, type TraceContext, type TracingPort } from '../../../core/ports/tracing.js';

type Api = typeof import('@opentelemetry/api');

export interface OpenTelemetryTracingOptions {
  /** The tracer's (instrumentation scope's) name; `marketkit` by default. */
  tracerName?: string;
}

/**
 * The tracing port over `@opentelemetry/api`. Rejects with a message saying what to install
 * when the package cannot be loaded.
 */
export async function openTelemetryTracing(options: OpenTelemetryTracingOptions = {}): Promise<TracingPort> {
  let api: Api;
  try {
    api = await import('@opentelemetry/api');
  } catch (error) {
    throw new Error('openTelemetryTracing() needs the optional peer dependency @opentelemetry/api: npm install @opentelemetry/api', { cause: error });
  }
  return tracingOver(api, options.tracerName ?? 'marketkit');
}

function tracingOver(api: Api, tracerName: string): TracingPort {
  const { context, trace, ROOT_CONTEXT, SpanStatusCode, isSpanContextValid } = api;
  // A ProxyTracer: it follows the provider the application registers, before or after this call.
  const tracer = trace.getTracer(tracerName, marketkitVersion);
  // The provider a ProxyTracerProvider delegates to while no SDK is registered (the API's no-op one).
  const noopProvider = new api.ProxyTracerProvider().getDelegate();
  const kinds: Record<SpanKind, number> = { internal: api.SpanKind.INTERNAL, server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT, producer: api.SpanKind.PRODUCER, consumer: api.SpanKind.CONSUMER };
  const validOf = (ctx: TraceContext): SpanContext | undefined => {
    const spanContext = trace.getSpanContext(ctx as Context);
    return spanContext && isSpanContextValid(spanContext) ? spanContext : undefined;
  };

  const ended = (span: OtelSpan, how: SpanEnd = {}) => {
    if (how.name) span.updateName(how.name);
    if (how.attributes) span.setAttributes(how.attributes);
    if (how.error !== undefined) {
      const { error } = how;
      if (error instanceof Error) span.recordException(error);
      const described = typeof error === 'object' && error !== null ? (error as { message?: unknown; type?: unknown }) : {};
      span.setStatus({ code: SpanStatusCode.ERROR, ...(typeof described.message === 'string' ? { message: described.message } : {}) });
      if (!how.attributes?.['error.type']) span.setAttribute('error.type', typeof described.type === 'string' ? described.type : error instanceof Error ? error.name : '_OTHER');
    }
    span.end();
  };

  return {
    startSpan(name, { kind, attributes, parent, links }): Span {
      const base = (parent as Context | undefined) ?? ROOT_CONTEXT;
      const linked = links?.map(validOf).filter((spanContext): spanContext is SpanContext => spanContext !== undefined).map((spanContext) => ({ context: spanContext }));
      const span = tracer.startSpan(name, { kind: kinds[kind], ...(attributes ? { attributes } : {}), ...(linked?.length ? { links: linked } : {}), ...(parent ? {} : { root: true }) }, base);
      return {
        // Read once, by the access log: not worked out for spans nobody asks.
        get traceId() {
          const spanContext = span.spanContext();
          return isSpanContextValid(spanContext) ? spanContext.traceId : '';
        },
        context: trace.setSpan(base, span),
        end: (how) => ended(span, how),
      };
    },
    withContext: (ctx, fn) => context.with(ctx as Context, fn),
    active() {
      const ctx = context.active();
      return validOf(ctx) ? ctx : undefined;
    },
    extract(traceparent, tracestate) {
      // Parsed here rather than by the global propagator: that is a no-op until an SDK registers one,
      // and the caller's trace id belongs in the logs even then.
      const parsed = parseTraceparent(traceparent);
      if (!parsed) return undefined;
      const state = tracestate ? safeTraceState(api, tracestate) : undefined;
      return trace.setSpanContext(ROOT_CONTEXT, { traceId: parsed.traceId, spanId: parsed.spanId, traceFlags: parsed.flags & 0xff, isRemote: true, ...(state ? { traceState: state } : {}) });
    },
    live() {
      const provider = trace.getTracerProvider() as { getDelegate?: () => unknown };
      // Another copy of the API's proxy, or an SDK provider set some other way: taken as live.
      return typeof provider.getDelegate !== 'function' || provider.getDelegate() !== noopProvider;
    },
    inject(ctx) {
      const spanContext = validOf(ctx);
      return spanContext ? `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}` : undefined;
    },
  };
}

/** A tracestate the API can read; a malformed one is dropped, as W3C Trace Context says, never the request. */
function safeTraceState(api: Api, header: string) {
  try {
    return api.createTraceState(header.slice(0, 512));
  } catch {
    // Malformed: dropped, as W3C Trace Context says; the request goes on without it.
    return undefined;
  }
}
