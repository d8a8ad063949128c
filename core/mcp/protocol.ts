/**
 * The MCP revisions this endpoint speaks, and how a request says which one it uses. Both eras are
 * served statelessly: the modern revision declares its version on every request; the legacy ones
 * negotiate it with `initialize`, and the endpoint keeps nothing between requests either way.
 */
import { isObject, JsonRpcError, type JsonRpcRequest } from './jsonrpc.js';
import { checkMirroredHeaders, type HeaderSource } from './request-headers.js';

/** Stateless, per-request `_meta`, `server/discover`. */
export const modernVersions = ['2026-07-28'] as const;
/** Negotiated with `initialize`, newest first. */
export const legacyVersions = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const supportedVersions: readonly string[] = [...modernVersions, ...legacyVersions];

export type Era = 'modern' | 'legacy';

export const metaKeys = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
} as const;

export function isSupportedVersion(version: unknown): version is string {
  return typeof version === 'string' && supportedVersions.includes(version);
}

export function unsupportedVersion(requested: unknown): JsonRpcError {
  return new JsonRpcError('unsupportedProtocolVersion', 'Unsupported protocol version', {
    data: { supported: supportedVersions, requested },
  });
}

/**
 * What a request declares before its method runs, checked in the revision's order: its version
 * (-32022 for one not spoken here), for a 2026-07-28 request its `_meta` (-32602, HTTP 400), then,
 * on a transport with headers, the mirrored headers (-32020, HTTP 400). No handshake and no
 * session stand behind a request, so each is checked on its own. `headers` is absent on a
 * transport without headers (stdio). Returns the era: a request with no version anywhere is a
 * legacy one, as the specifications take it to speak 2025-03-26.
 */
export function admitRequest(request: JsonRpcRequest, headers: HeaderSource | undefined): Era {
  const meta = isObject(request.params._meta) ? request.params._meta : undefined;
  const bodyVersion = meta?.[metaKeys.protocolVersion];
  // A version header that is not spoken here refused the whole HTTP request already (core/mcp/handler.ts).
  const declared = headers?.header('mcp-protocol-version') ?? bodyVersion;
  if (declared !== undefined && !isSupportedVersion(declared)) throw unsupportedVersion(declared);
  const era: Era = (modernVersions as readonly unknown[]).includes(declared) ? 'modern' : 'legacy';
  if (era === 'modern') checkMeta(meta);
  if (headers) checkMirroredHeaders(request, headers, era === 'modern', bodyVersion);
  return era;
}

/** 2026-07-28 carries on every request what a handshake used to: its version and the client's capabilities. */
function checkMeta(meta: Record<string, unknown> | undefined): void {
  const missing = (what: string) => new JsonRpcError('invalidMeta', `Invalid params: a 2026-07-28 request carries ${what}.`);
  if (!meta) throw missing('params._meta');
  if (typeof meta[metaKeys.protocolVersion] !== 'string') throw missing(`params._meta["${metaKeys.protocolVersion}"]`);
  if (!isObject(meta[metaKeys.clientCapabilities])) throw missing(`params._meta["${metaKeys.clientCapabilities}"], an object`);
}

/** initialize's negotiation: the client's version when it is a legacy one we speak, else the newest legacy one. */
export function negotiateLegacyVersion(requested: unknown): string {
  return typeof requested === 'string' && (legacyVersions as readonly string[]).includes(requested) ? requested : legacyVersions[0];
}
