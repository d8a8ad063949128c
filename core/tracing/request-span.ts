/**
 * The server span of one request (docs/operations.md, "Traces"), after OpenTelemetry's HTTP
 * semantic conventions: named `{method} {route template}`, with the method, route, path (never
 * the query: a signed URL's signature is there), status and client address. It continues the
 * caller's trace from its `traceparent` header, or, on the MCP endpoint, from the JSON-RPC
 * request's `params._meta.traceparent` (SEP-414), which wins: it names the message, not the HTTP hop.
 */
import type { Span, SpanAttributes, TracingPort } from '../ports/tracing.js';

/** What a surface knows of a request's trace from its body (MCP's `_meta`), read before the span starts. */
export interface BodyTrace {
  traceparent?: string;
  tracestate?: string;
  attributes?: SpanAttributes;
}

/** The parts of the frame's exchange a request span reads. */
interface TracedExchange {
  request: { method: string; header(name: string): string | undefined; clientAddress?: string };
  path: string;
  requestId: string;
}

const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export interface RequestSpan {
  /** Starts the span and runs the surface with it active. */
  run<T>(serve: () => Promise<T>): Promise<T>;
  /** The span's trace id once started ('' when it has none). */
  readonly traceId: string;
  /** Ends it with the answer's status, the route template matched ('' when none) and the surface's name for metrics. */
  end(status: number, route: string, surface: string): void;
}

export function requestSpan(tracing: TracingPort, exchange: TracedExchange, readBody: (() => Promise<BodyTrace | undefined>) | undefined): RequestSpan {
  const { request } = exchange;
  const method = knownMethods.has(request.method) ? request.method : '_OTHER';
  let span: Span | undefined;
  return {
    async run(serve) {
      // A body that cannot be read is the surface's to refuse; the trace then comes from the header.
      const body = readBody ? await readBody().catch(() => undefined) : undefined;
      const parent = tracing.extract(body?.traceparent, body?.tracestate) ?? tracing.extract(request.header('traceparent'), request.header('tracestate'));
      const attributes: SpanAttributes = { 'http.request.method': method, 'url.path': exchange.path, 'marketkit.request_id': exchange.requestId, ...body?.attributes };
      if (method === '_OTHER') attributes['http.request.method_original'] = request.method;
      if (request.clientAddress) attributes['client.address'] = request.clientAddress;
      const userAgent = request.header('user-agent');
      if (userAgent) attributes['user_agent.original'] = userAgent.slice(0, 200);
      span = tracing.startSpan(method === '_OTHER' ? 'HTTP' : method, { kind: 'server', attributes, ...(parent ? { parent } : {}) });
      return tracing.withContext(span.context, serve);
    },
    get traceId() {
      return span?.traceId ?? '';
    },
    end(status, route, surface) {
      if (!span) return;
      const attributes: SpanAttributes = { 'http.response.status_code': status, 'marketkit.surface': surface };
      if (route) attributes['http.route'] = route;
      const name = `${method === '_OTHER' ? 'HTTP' : method}${route ? ` ${route}` : ''}`;
      // Server spans fail on 5xx only: a 4xx is the client's doing (the HTTP conventions).
      span.end({ name, attributes, ...(status >= 500 ? { error: { message: `HTTP ${status}`, type: String(status) } } : {}) });
    },
  };
}
