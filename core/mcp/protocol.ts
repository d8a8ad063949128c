/**
 * The MCP revisions this endpoint speaks, and how a request says which one it uses. Both eras are
 * served statelessly: the modern revision declares its version on every request; the legacy ones
 * negotiate it with `initialize`, and the endpoint keeps nothing between requests either way.
 */
import { isObject, JsonRpcError } from './jsonrpc.js';

/** Stateless, per-request `_meta`, `server/discover`. */
export const modernVersions = ['2026-07-28'] as const;
/** Negotiated with `initialize`, newest first. */
export const legacyVersions = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const supportedVersions: readonly string[] = [...modernVersions, ...legacyVersions];

/**
 * What a legacy request without any version header is taken to speak (the 2025-06-18 and later
 * specifications say 2025-03-26, whose clients sent no header).
 */
const undeclaredVersion = '2025-03-26';

export type Era = 'modern' | 'legacy';

export const metaKeys = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

export function isSupportedVersion(version: unknown): version is string {
  return typeof version === 'string' && supportedVersions.includes(version);
}

export function unsupportedVersion(requested: unknown): JsonRpcError {
  return new JsonRpcError('unsupportedProtocolVersion', 'Unsupported protocol version', {
    data: { supported: supportedVersions, requested },
  });
}

/** The request's `_meta`, or an empty one. */
export function metaOf(params: Record<string, unknown>): Record<string, unknown> {
  return isObject(params._meta) ? params._meta : {};
}

/**
 * The version a request speaks and its era: the MCP-Protocol-Version header wins over
 * `_meta`'s protocolVersion (contract); neither means a legacy client. -32022 for a version
 * this endpoint does not speak.
 */
export function versionOf(params: Record<string, unknown>, header: string | undefined): { version: string; era: Era } {
  const declared = header ?? metaOf(params)[metaKeys.protocolVersion];
  if (declared === undefined) return { version: undeclaredVersion, era: 'legacy' };
  if (!isSupportedVersion(declared)) throw unsupportedVersion(declared);
  return { version: declared, era: (modernVersions as readonly string[]).includes(declared) ? 'modern' : 'legacy' };
}

/** initialize's negotiation: the client's version when it is a legacy one we speak, else the newest legacy one. */
export function negotiateLegacyVersion(requested: unknown): string {
  return typeof requested === 'string' && (legacyVersions as readonly string[]).includes(requested) ? requested : legacyVersions[0];
}

/** A mirrored header's value: Base64 sentinel form (`=?base64?...?=`) decoded, else as sent. */
function headerValue(raw: string): string {
  const encoded = /^=\?base64\?(.*)\?=$/.exec(raw);
  if (!encoded) return raw;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(encoded[1]!), (c) => c.charCodeAt(0)));
  } catch {
    return raw;
  }
}

/**
 * The 2026-07-28 transport mirrors the method and the tool name into `Mcp-Method` and `Mcp-Name`
 * so that intermediaries can route on them; a body that says otherwise is refused (-32020), or
 * the router and the server would act on different calls. Absent headers are not required.
 */
export function checkMirroredHeaders(method: string, params: Record<string, unknown>, sentMethod: string | undefined, sentName: string | undefined): void {
  if (sentMethod !== undefined && sentMethod !== method) {
    throw new JsonRpcError('headerMismatch', `Header mismatch: Mcp-Method is ${sentMethod.slice(0, 100)}, the body's method is ${method.slice(0, 100)}.`);
  }
  if (sentName !== undefined && method === 'tools/call' && headerValue(sentName) !== params.name) {
    throw new JsonRpcError('headerMismatch', "Header mismatch: Mcp-Name does not match the body's params.name.");
  }
}
