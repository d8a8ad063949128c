import { marketkitVersion } from '../core/marketplace.js';
import { devSellerName } from './dev-seller.js';
import { startLine } from './serve-start.js';

/** What `marketkit serve` says once it listens: where it serves, on what storage, the dev seller. */
export interface ServeBanner {
  /** The site URL, else the listen address. */
  base: string;
  listenUrl: string;
  siteUrl: string | undefined;
  allowedHosts: string[];
  /** A service key was given: the admin surface is served. */
  admin: boolean;
  autoApprove: boolean;
  /** Origins whose browser pages may call the API (--cors-origin). */
  corsOrigins: string[];
  /** The rate limits in force, in words (cli/rate-limit-flags.ts describe). */
  rateLimits: string;
  /** Whether this instance runs the webhook delivery worker, and accepts local targets. */
  webhooks: { delivering: boolean; allowLocal: boolean };
  storage:
    | { kind: 'postgres'; where: string; source: string; maxStalenessMs: number | undefined }
    | { kind: 'sqlite'; database: string }
    | { kind: 'memory' };
  /** Where blobs are kept (a directory, an S3 bucket, memory). */
  blobsWhere: string;
  s3: boolean;
  devSeller: { id: string; token: string | null };
  /** The command that makes a new dev token, for the starts that show none. */
  newToken: string;
  /** The `marketkit conformance` command line with the fixture accounts' tokens (--fixtures). */
  certify: string | null;
  /** Where GET /metrics answers (--metrics-port), if anywhere. */
  metricsUrl?: string;
  /** The dashboard's address (localhost for a loopback listen address: passkeys refuse an IP), or null with --no-dashboard. */
  dashboard: string | null;
  /** A one-time sign-in link for the dev seller, made at the first start (with the dev token). */
  devSignIn: string | null;
}

/** The banner as one JSON line (--json), for scripts. */
export function serveBannerJson(banner: ServeBanner): string {
  const { base, storage, blobsWhere } = banner;
  const storageLine =
    storage.kind === 'postgres'
      ? { kind: 'postgres', database: storage.where, blobs: blobsWhere, read_cache: storage.maxStalenessMs === undefined ? 'strict' : { max_staleness_ms: storage.maxStalenessMs } }
      : storage.kind === 'sqlite'
        ? { kind: 'sqlite', database: storage.database, blobs: blobsWhere }
        : { kind: 'memory', ...(banner.s3 ? { blobs: blobsWhere } : {}) };
  return startLine(base, storageLine, { id: banner.devSeller.id, username: devSellerName, token: banner.devSeller.token }, { ...(banner.certify ? { conformance: banner.certify } : {}), ...(banner.metricsUrl ? { metrics: banner.metricsUrl } : {}), ...(banner.dashboard ? { dashboard: banner.dashboard } : {}), ...(banner.devSignIn ? { dashboard_sign_in: banner.devSignIn } : {}) });
}

/** The banner as text, one `out` call a line. */
export function printServeBanner(banner: ServeBanner, out: (line: string) => void): void {
  const { base, storage, blobsWhere, certify } = banner;
  const token = banner.devSeller.token;
  out(`MarketKit ${marketkitVersion} is serving ${base}`);
  out(`  REST API    ${base}/api/v1`);
  out(`  MCP         ${base}/api/mcp  (the same token as a Bearer header; docs/mcp.md)`);
  out(`  Reference   ${base}/api/v1/docs  (OpenAPI document: ${base}/api/v1/openapi.json)`);
  if (banner.dashboard) out(`  Dashboard   ${banner.dashboard}  (sign in with a link: marketkit admin login-link <account>; --no-dashboard)`);
  out(urlsLine(banner.siteUrl, banner.listenUrl, banner.allowedHosts));
  if (banner.admin) out(`  Admin       ${base}/api/admin  (Bearer MARKETKIT_SERVICE_KEY; docs/moderation.md)`);
  if (banner.metricsUrl) out(`  Metrics     ${banner.metricsUrl}  (probes: ${base}/livez, ${base}/readyz; docs/operations.md)`);
  out(
    banner.autoApprove
      ? '  Review      auto-approve: submitted listings are published at once'
      : '  Review      submitted listings wait for a moderator (marketkit admin queue; --auto-approve to skip)',
  );
  out(`  Rate limits ${banner.rateLimits} (--rate-limit-*)`);
  out(`  Browsers    ${banner.corsOrigins.length ? `pages of ${banner.corsOrigins.join(', ')} may call the API (CORS)` : 'no other origin may call the API (--cors-origin to allow a web app)'}`);
  out(
    `  Webhooks    ${banner.webhooks.delivering ? 'delivered by this instance' : 'recorded, not delivered by this instance (--no-webhook-delivery)'}; ${
      banner.webhooks.allowLocal ? 'http and local addresses allowed (--webhooks-allow-local: testing only)' : 'https to public addresses only'
    } (docs/webhooks.md)`,
  );
  out(
    storage.kind === 'postgres'
      ? `  Storage     PostgreSQL ${storage.where} (${storage.source}), blobs in ${blobsWhere}; other instances may serve it too (docs/deploy.md)`
      : storage.kind === 'sqlite'
        ? `  Storage     SQLite ${storage.database}, blobs in ${blobsWhere}`
        : `  Storage     in memory: everything is lost when this process stops${banner.s3 ? ` (blobs in ${blobsWhere})` : ''}`,
  );
  if (storage.kind === 'postgres') {
    const staleness = storage.maxStalenessMs;
    out(`  Read cache  ${staleness === undefined ? 'strict: every request sees every write acknowledged before it, on any instance' : `at most ${staleness} ms stale across instances (--max-staleness)`}`);
  }
  out(`  Dev seller  ${devSellerName} (approved, payouts connected, plan pro)`);
  if (token) {
    out(`  Dev token   ${token}`);
    out(`              every scope (the spec's six, studio:* and webhooks:*); shown once, keep it`);
    if (banner.devSignIn) out(`  Sign in     ${banner.devSignIn}  (the dashboard as ${devSellerName}; works once, for 15 minutes)`);
    out('');
    out(`Try: curl -H "Authorization: Bearer ${token}" ${base}/api/v1/me`);
  } else {
    out(`  Dev token   shown at the first start only. For a new one:`);
    out(`              ${banner.newToken}`);
  }
  if (certify) {
    out('');
    out('Certify this server against the contract (fixture accounts created; docs/conformance.md):');
    out(`  ${certify}`);
  }
  out('Stop with Ctrl-C.');
}

/** The banner's line on where issued URLs (signed_url, public_url) point: never at an unlisted Host. */
function urlsLine(siteUrl: string | undefined, listen: string, allowedHosts: string[]): string {
  if (siteUrl) return `  URLs        built on ${siteUrl} (--site-url; the Host header is never used)`;
  const wildcard = /^http:\/\/(0\.0\.0\.0|\[::\]):/.test(listen) ? '; clients elsewhere need --site-url or --allowed-host' : '';
  const listed = allowedHosts.length > 0 ? `; for Host ${allowedHosts.join(', ')} on that host (--allowed-host)` : '';
  return `  URLs        built on ${listen}, the listen address (no --site-url)${listed}${wildcard}`;
}
