/**
 * DNS-rebinding protection for the MCP endpoint. A page on evil.example whose name an attacker
 * points at 127.0.0.1 reaches a local server with `Host: evil.example` and
 * `Origin: http://evil.example`: so, on loopback, the Host must be a loopback name (or one the
 * operator allows); and anywhere, an Origin that is present must be allowed.
 */
import type { CoreRequest } from '../pipeline/request.js';
import { rememberAnswers } from '../memo.js';

export interface RebindingOptions {
  /** Origins (`https://app.example`) whose pages may call the endpoint, beyond the site's own. */
  allowedOrigins: readonly string[];
  /** Host names (`dev.example` or `dev.example:8787`) accepted besides the loopback names when listening on loopback. */
  allowedHosts: readonly string[];
  siteUrl: string | null;
}

const loopbackNames = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `name` and `name:port` of a Host header value, lower-cased; null when it is not one. */
function parseHost(value: string | undefined): { name: string; host: string } | null {
  return value ? parseHostValue(value) : null;
}

const parseHostValue = rememberAnswers((value: string) => {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/.exec(value.toLowerCase());
  return match ? { name: match[1]!, host: match[0] } : null;
});

/**
 * The Origin header as a URL when it is an origin as browsers send it (scheme, host and port in
 * their one spelling), null otherwise: `HTTPS://app.example`, `https://app.example:443` or
 * `https://app.example/` is no origin a browser sends, and REST's CORS matches origins exactly too.
 */
function originOf(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.origin === 'null' || url.origin !== value ? null : url;
  } catch {
    // Not a URL at all: no origin a browser sends, which the caller refuses.
    return null;
  }
}

export type RebindingCheck = { allowed: true; corsOrigin: string | null } | { allowed: false; reason: string };

export function createRebindingGuard(options: RebindingOptions) {
  const origins = new Set(options.allowedOrigins.map((origin) => new URL(origin).origin));
  if (options.siteUrl) origins.add(new URL(options.siteUrl).origin);
  const hosts = new Set(options.allowedHosts.map((host) => host.toLowerCase()));

  /**
   * Host and Origin are read from the headers, never from an absolute-form request target. Where
   * the binding cannot tell whether it listens on loopback, only the Origin is checked.
   */
  return function check(request: CoreRequest): RebindingCheck {
    const host = parseHost(request.header('host'));
    const hostAllowed = host !== null && (loopbackNames.has(host.name) || hosts.has(host.name) || hosts.has(host.host));
    if (request.loopback && !hostAllowed) {
      return { allowed: false, reason: 'This server listens on loopback and takes requests for localhost, 127.0.0.1 or [::1] only.' };
    }
    const sent = request.header('origin');
    if (sent === undefined) return { allowed: true, corsOrigin: null };
    const origin = originOf(sent);
    // A page of the server's own origin is as safe as its Host, which is trusted only once checked on loopback.
    const sameOrigin = origin !== null && request.loopback === true && origin.host === host?.host;
    if (origin && (origins.has(origin.origin) || sameOrigin)) return { allowed: true, corsOrigin: origin.origin };
    return { allowed: false, reason: 'This Origin may not call the MCP endpoint; the server operator can allow it (mcp.allowedOrigins).' };
  };
}
