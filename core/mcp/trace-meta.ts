/**
 * What an MCP request says of its trace: SEP-414 (final; the 2026-07-28 revision carries it)
 * reserves the unprefixed `_meta` keys `traceparent` and `tracestate` for W3C Trace Context, so a
 * client inside a trace puts them in `params._meta`. Read on every revision (older clients send
 * them too); a batch or a body that is not a request carries none. Plus what names the request in
 * the span: the MCP semantic conventions' `mcp.method.name`, `gen_ai.tool.name` and `mcp.protocol.version`.
 */
import type { SpanAttributes } from '../ports/tracing.js';
import type { BodyTrace } from '../tracing/request-span.js';
import { isObject } from './jsonrpc.js';
import { metaKeys } from './protocol.js';

/** Long enough for any method or tool name; a longer one is cut, never refused here. */
const cut = (text: string) => text.slice(0, 128);

export function mcpBodyTrace(body: unknown, versionHeader: string | undefined): BodyTrace | undefined {
  if (!isObject(body)) return undefined;
  const params = isObject(body.params) ? body.params : undefined;
  const meta = params && isObject(params._meta) ? params._meta : undefined;
  const attributes: SpanAttributes = {};
  if (typeof body.method === 'string') attributes['mcp.method.name'] = cut(body.method);
  if (body.method === 'tools/call' && typeof params?.name === 'string') attributes['gen_ai.tool.name'] = cut(params.name);
  const version = meta?.[metaKeys.protocolVersion] ?? versionHeader;
  if (typeof version === 'string') attributes['mcp.protocol.version'] = cut(version);
  const traceparent = meta?.traceparent;
  const tracestate = meta?.tracestate;
  return { attributes, ...(typeof traceparent === 'string' ? { traceparent } : {}), ...(typeof tracestate === 'string' ? { tracestate } : {}) };
}
