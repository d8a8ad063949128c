import type { ByteStream } from '../ports/blobs.js';
import { rememberAnswers } from '../memo.js';

/**
 * A request as the core sees it. Bindings fill it straight from their runtime's request, so that
 * no runtime needs to build a WHATWG Request it would not otherwise have. It may be a class
 * instance whose `header` is a prototype method (the Node binding's is): to change one field,
 * copy the fields one by one, not with a spread.
 */
export interface CoreRequest {
  method: string;
  /** The request target as received: `/api/v1/assets?limit=2` (or an absolute-form URL). */
  target: string;
  /** A header's value by lower-case name; repeated headers joined with `, `. */
  header(name: string): string | undefined;
  /** The body, streamed; null when the request has none. */
  body: ByteStream | null;
  /**
   * `scheme://host[:port]` as the binding received it (the Host header), for building absolute URLs
   * when no site URL is configured and the host is allowed (siteUrls). (The MCP Host check reads
   * the Host header itself, never this: some runtimes take it from an absolute-form request target.)
   */
  origin?: string;
  /** The prefix the marketplace is mounted under inside a larger app (`/market`), if any. */
  basePath?: string;
  /**
   * Whether the request arrived on a loopback address (127.0.0.0/8, ::1), for the MCP Host check
   * against DNS rebinding. Bindings that cannot tell leave it unset, and the check is skipped.
   */
  loopback?: boolean;
  /**
   * The client's network address (IP) as the binding saw it, for limits per client address
   * (failed authentication, unauthenticated calls, connections). Bindings that cannot tell leave
   * it unset, and such limits then share one budget for all unknown clients.
   */
  clientAddress?: string;
}

export interface CoreResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: string | Uint8Array | ByteStream | null;
}

export const jsonContentType = 'application/json; charset=utf-8';

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: a client-sent `x-request-id` of up to 128 safe characters, else a new UUID. */
export function requestIdOf(request: CoreRequest, ids: { uuid(): string }): string {
  const sent = request.header('x-request-id');
  return sent && requestIdPattern.test(sent) ? sent : ids.uuid();
}

/**
 * Where the URLs a marketplace stores or returns point (signed_url, public_url, the OpenAPI
 * document's servers): never at a request's Host unless that host is allowed (docs/security.md,
 * "Input, URLs and logs").
 */
export interface SitePolicy {
  /** The configured site URL, without a trailing slash: when set, always this. */
  siteUrl: string | null;
  /** Hosts (`name`, any port, or `name:port`) whose requests may build URLs on their own origin. */
  allowedHosts: readonly string[];
  /** The address the server listens on, once known (`marketkit serve` knows it). */
  listenUrl?: () => string | undefined;
  /** Called when a request's host is trusted by nothing and the URLs fall back to http://localhost. */
  onUntrustedHost?: (host: string) => void;
}

/** The site URL of each request under a policy. */
export type SiteUrls = (request: CoreRequest) => string;

/** The names a loopback request may carry (with any port): as the MCP endpoint's Host check. */
const loopbackHostNames = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An origin's scheme, `name:port` and name, lower-cased; null when it is not a plain http(s) origin. */
const partsOfOrigin = rememberAnswers((origin: string) => {
  const match = /^(https?):\/\/((\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?)$/.exec(origin.toLowerCase());
  return match ? { scheme: match[1]!, host: match[2]!, name: match[3]! } : null;
});

/**
 * The site URL for each request, in this order: the configured site URL; the request's own origin
 * when its Host is in `allowedHosts`; the listen address; the request's origin when its Host is a
 * loopback name (localhost, 127.0.0.1, [::1], any port: development and tests); the first allowed
 * host, on the request's scheme; else `http://localhost`, and `onUntrustedHost` hears of it. The
 * mount prefix (basePath) is added to all but the configured URL, which names it itself.
 */
export function siteUrls(policy: SitePolicy): SiteUrls {
  const { siteUrl } = policy;
  if (siteUrl !== null) return () => siteUrl;
  const allowed = new Set(policy.allowedHosts.map((host) => host.toLowerCase()));
  const fallbackHost = policy.allowedHosts[0]?.toLowerCase();
  return (request) => {
    const base = request.basePath ?? '';
    const origin = request.origin === undefined ? null : partsOfOrigin(request.origin);
    if (origin && (allowed.has(origin.host) || allowed.has(origin.name))) return `${origin.scheme}://${origin.host}${base}`;
    const listening = policy.listenUrl?.();
    if (listening) return `${listening}${base}`;
    if (origin && loopbackHostNames.has(origin.name)) return `${origin.scheme}://${origin.host}${base}`;
    if (fallbackHost) return `${origin?.scheme ?? 'http'}://${fallbackHost}${base}`;
    if (request.origin !== undefined) policy.onUntrustedHost?.(request.origin.slice(0, 300));
    return `http://localhost${base}`;
  };
}

const untrustingSiteUrls = siteUrls({ siteUrl: null, allowedHosts: [] });

/**
 * The site's root address for this request: a policy's answer, or the configured URL, or, with
 * neither, the request's origin only when its Host is a loopback name (else http://localhost).
 */
export function siteUrlOf(request: CoreRequest, site: string | null | SiteUrls): string {
  if (typeof site === 'function') return site(request);
  return site ?? untrustingSiteUrls(request);
}

export function jsonResponse(status: number, value: unknown, headers: Record<string, string> = {}): CoreResponse {
  return jsonTextResponse(status, JSON.stringify(value), headers);
}

/** A response whose JSON is already text. */
export function jsonTextResponse(status: number, json: string, headers: Record<string, string> = {}): CoreResponse {
  return { status, headers: { 'content-type': jsonContentType, ...headers }, body: json };
}

/**
 * Splits a request target into its path and its query string (without `?`), or null when unusable.
 * Dot segments (`.`, `..`, and their percent-encoded forms) are resolved as WHATWG URLs resolve
 * them, which is what Bun and Deno do before the app sees the path: every binding then routes the
 * same path.
 */
export function splitTarget(target: string): { path: string; query: string } | null {
  let path: string;
  let query: string;
  if (target.startsWith('/')) {
    const q = target.indexOf('?');
    [path, query] = q < 0 ? [target, ''] : [target.slice(0, q), target.slice(q + 1)];
  } else {
    // Absolute-form (`GET http://host/path`): route by the path only, never by the host in it.
    try {
      const url = new URL(target);
      return { path: url.pathname, query: url.search.slice(1) };
    } catch {
      // Not a URL: no target to route, answered 404 by the frame.
      return null;
    }
  }
  if (/\/\.|\/%2e/i.test(path)) {
    try {
      path = new URL(path, 'http://marketkit.invalid').pathname;
    } catch {
      // A path that cannot be normalized: no target to route, answered 404 by the frame.
      return null;
    }
  }
  return { path, query };
}

/** What a handler knows about the request beyond the request itself. */
export interface RequestContext {
  requestId: string;
  /** The site's root address for this request, without a trailing slash. */
  siteUrl: string;
  path: string;
  query: string;
}

export type RouteHandler = (request: CoreRequest, context: RequestContext) => Promise<CoreResponse>;
