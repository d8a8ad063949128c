/**
 * The 2026-07-28 Streamable HTTP transport mirrors the request's version, method and target into
 * headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) so that intermediaries can route on
 * them without reading the body. The server that reads the body must refuse a request whose headers
 * are missing or say otherwise (-32020 HeaderMismatch, HTTP 400), or a router and this server
 * could act on different calls. Earlier revisions define none of them: there a header is checked
 * only when sent.
 */
import { JsonRpcError, type JsonRpcRequest } from './jsonrpc.js';

/** The request's headers (a CoreRequest is one): a header by its lower-case name, undefined when not sent. */
export interface HeaderSource {
  header(name: string): string | undefined;
}

/** The methods whose target `Mcp-Name` mirrors, and the param that holds it. */
const namedTargets: Readonly<Record<string, 'name' | 'uri'>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

function mismatch(message: string): JsonRpcError {
  return new JsonRpcError('headerMismatch', `Header mismatch: ${message}`);
}

const sentinel = /^=\?base64\?(.*)\?=$/;
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A header value without the optional whitespace around it, which is not part of it (RFC 9110 5.5). */
function trimmed(raw: string): string {
  return raw.replace(/^[ \t]+|[ \t]+$/g, '');
}

/**
 * `Mcp-Name` as the client meant it: trimmed, the Base64 sentinel form (`=?base64?...?=`) decoded;
 * null for a sentinel that is not valid Base64 of UTF-8, which the transport names among the
 * invalid values. (The sentinel is for names and parameters only: a method is plain ASCII.)
 */
function mirroredName(raw: string): string | null {
  const value = trimmed(raw);
  const encoded = sentinel.exec(value);
  if (!encoded) return value;
  if (!base64.test(encoded[1]!)) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(encoded[1]!), (c) => c.charCodeAt(0)));
  } catch {
    // Not UTF-8 once decoded: it matches no name, and the caller refuses the mismatch.
    return null;
  }
}

/**
 * Checks the mirrored headers of one request against its body. `required`: the request speaks
 * 2026-07-28, whose transport requires the headers; otherwise only the ones sent are compared.
 * `bodyVersion` is the version `_meta` declares, which the version header must repeat.
 */
export function checkMirroredHeaders(request: JsonRpcRequest, headers: HeaderSource, required: boolean, bodyVersion: unknown): void {
  const { method, params } = request;
  const version = headers.header('mcp-protocol-version');
  if (version === undefined ? required : bodyVersion !== undefined && trimmed(version) !== bodyVersion) {
    throw mismatch(`MCP-Protocol-Version must repeat _meta's io.modelcontextprotocol/protocolVersion (${String(bodyVersion).slice(0, 40)}).`);
  }
  const sentMethod = headers.header('mcp-method');
  if (sentMethod === undefined ? required : trimmed(sentMethod) !== method) {
    throw mismatch(`Mcp-Method must be the body's method, ${method.slice(0, 100)}.`);
  }
  const target = namedTargets[method];
  const value = target === undefined ? undefined : params[target];
  if (typeof value !== 'string') return;
  const sentName = headers.header('mcp-name');
  if (sentName === undefined ? required : mirroredName(sentName) !== value) {
    throw mismatch(`Mcp-Name must be the body's params.${target}, ${value.slice(0, 100)} (Base64 sentinel form for a value that is not plain ASCII).`);
  }
}
