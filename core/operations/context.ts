import type { Static, TSchema } from '@sinclair/typebox';
import type { Scope } from '../domain/scopes.js';
import type { ErrorCode } from '../errors.js';
import type { BlobPort } from '../ports/blobs.js';
import type { ClockPort } from '../ports/clock.js';
import type { EventsPort } from '../ports/events.js';
import type { IdsPort } from '../ports/ids.js';
import type { RateLimiterPort, RequestClass } from '../ports/rate-limit.js';
import type { AccountRecord, StoragePort } from '../ports/storage.js';
import type { SessionVerifierPort } from '../ports/auth.js';
import type { UploadSigner } from './blob-urls.js';
import type { StudioStoragePort } from '../ports/studio.js';
import type { UploadStatePort } from '../ports/upload-state.js';
import type { HashingPort } from '../ports/hashing.js';
import type { SubmitPolicy } from '../moderation/moderation.js';
import type { ReadCache } from '../read-cache.js';
import type { MarketplaceMetrics } from '../metrics/marketplace-metrics.js';
import type { WebhookTargetPolicy } from '../webhooks/addresses.js';
import type { TracingPort } from '../ports/tracing.js';
import type { RestBinding, ToolDeclaration } from './declaration.js';

export interface Ports {
  storage: StoragePort;
  blobs: BlobPort;
  clock: ClockPort;
  ids: IdsPort;
  rateLimiter: RateLimiterPort;
  events: EventsPort;
  sessions: SessionVerifierPort[];
  /** A faster one-shot SHA-256 a runtime supplies, for the single PUT (core/ports/hashing.ts). */
  hashing?: HashingPort;
  /** Uploads in progress: offset, hash state, parts (core/ports/upload-state.ts). */
  uploadStates: UploadStatePort;
  /** Creator Studio's storage; without it the /studio routes answer 404 (docs/studio.md). */
  studio?: StudioStoragePort;
  /** What was read from `storage`, kept until it changes (core/read-cache.ts); made by createMarketplace. */
  reads: ReadCache;
  /** What the marketplace counts (core/metrics/), when metrics are on. */
  metrics?: MarketplaceMetrics;
  /** Where spans go (core/ports/tracing.ts), when tracing is on. */
  tracing?: TracingPort;
  /** Tells this process's webhook worker, if it runs, that a change may have queued deliveries (core/webhooks/worker.ts). */
  nudgeDeliveries?: () => void;
}

/**
 * The ports a module uses, named in its signature: `storage` narrowed to the capability ports it
 * calls (core/ports/storage.ts), the others picked by name. The marketplace's whole `Ports` is one
 * of them, so a caller passes what it has; a reader sees what the module depends on.
 */
export type PortsWith<Storage, Others extends Exclude<keyof Ports, 'storage'> = never> = { storage: Storage } & Pick<Ports, Others>;

/** Settings every operation may read; resolved once from the marketplace options. */
export interface Settings {
  version: string;
  /** How long a signed upload URL lives. */
  uploadUrlTtlMs: number;
  maxFileBytes: number;
  maxImageBytes: number;
  /** How long after its URL expired an upload never confirmed is kept before the sweep removes it. */
  uploadGraceMs: number;
  /** How long a resumable append holds its upload's lease (renewed while it runs). */
  uploadLeaseMs: number;
  /** How long a superseded version keeps its file (for a rollback) before the upload sweep removes it. */
  supersededRetentionMs: number;
  /** The most bytes one account's uploads may hold; null for no quota. */
  storageQuotaBytes: number | null;
  /** What happens to a listing once it is pending (createMarketplace's moderation.onSubmit). */
  onSubmit: SubmitPolicy;
  /** Which webhook URLs the operator allows beyond public https ones (createMarketplace's webhooks). */
  webhookTargets: WebhookTargetPolicy;
  /** The dashboard, when it is on (createMarketplace's dashboard): where it is mounted, how long its sessions and sign-in links live. */
  dashboard: { basePath: string; sessionIdleMs: number; sessionMaxMs: number; signInLinkMs: number; authenticate?: Authenticate; signInUrl?: string; selfSignUp?: boolean } | null;
}

/** What the dashboard's `authenticate` (an embedder's own sign-in: core/dashboard/embedded-sign-in.ts) is shown of a request. */
export interface DashboardRequest {
  method: string;
  /** The path below the marketplace's mount, with the dashboard's base path: `/dashboard/tokens`. */
  path: string;
  /** A request header, by lower-case name (`cookie`, `authorization`). */
  header(name: string): string | undefined;
}

/** The application's answer: the signed-in account's id or username, or null for nobody. */
export type Authenticate = (request: DashboardRequest) => Promise<string | null> | string | null;

/** Who is calling and what they may do, established by authentication. */
export interface Caller {
  account: AccountRecord;
  scopes: ReadonlySet<Scope>;
  /** The developer token used, directly or through an exchanged session; null for other sessions. */
  tokenId: string | null;
  /** How the caller proved who they are. */
  credential: 'developer-token' | 'session' | 'dashboard';
}

export interface OperationContext {
  caller: Caller;
  ports: Ports;
  settings: Settings;
  signer: UploadSigner;
  /** The site's root address for this request, without a trailing slash (`https://market.example`). */
  siteUrl: string;
  /** The read cache's stamp for this request (ReadCache.observe()), taken before authentication. */
  stamp: number;
}

/**
 * The scope of the admin surface's operations: held by the service key's caller only, never by a
 * developer token or a session (it is no Scope a token can be given).
 */
export const serviceScope = 'service';

/** What runOperation needs of any caller: the scopes it holds (a developer's, or the service key's). */
export interface RunContext {
  caller: { scopes: ReadonlySet<string> };
  ports: Ports;
}

/**
 * An operation, rendered by every surface alike: of the developer API (run with an OperationContext),
 * or of the admin surface (C: core/admin/admin-operation.ts, run for the service key).
 */
export interface Operation<S extends TSchema = TSchema, O = unknown, R extends TSchema = TSchema, C extends RunContext = OperationContext> {
  /** The operationId, in the domain's words: `createAsset`, `confirmAssetFile`. */
  name: string;
  summary: string;
  description?: string;
  /** The scope the caller's token must hold (the service key's, for an admin operation). */
  scope: Scope | typeof serviceScope;
  /** Which rate-limit class the call counts against. */
  requestClass: RequestClass;
  /**
   * The codes this operation can refuse with, beyond those every authenticated call can get
   * (UNAUTHORIZED, FORBIDDEN, INVALID_INPUT, RATE_LIMITED, INTERNAL_ERROR, SERVICE_UNAVAILABLE). The OpenAPI document
   * lists them, and the tests hold every answer the server gives to the document.
   */
  errors: readonly ErrorCode[];
  /** Account checks that come before input validation (contract order: 403 before 400). */
  guard?: (caller: Caller) => void;
  /** The whole input: path parameters, query and body fields in one object. */
  input: S;
  /** The result's schema (its type is the typed client's result type). */
  output: R;
  /**
   * Set on an operation whose result depends only on `ports.storage`, the caller's account and the
   * input (no clock, no blobs, no studio, no writes): its result is then kept, JSON and all, until
   * storage changes (core/read-cache.ts).
   */
  readsStorageOnly?: true;
  /** Where REST serves it (core/http/routes.ts derives the table, the OpenAPI document and the typed client from it). */
  rest?: RestBinding;
  /** Its MCP tool: the hosted endpoint's (core/mcp/tools.ts) and the local process's (cli/mcp-tools.ts), sent there as its REST request. */
  tool?: ToolDeclaration;
  run(ctx: C, input: Static<S>): Promise<O>;
}

export function defineOperation<S extends TSchema, O, R extends TSchema>(operation: Operation<S, O, R>): Operation<S, O, R> {
  return operation;
}

/** Any operation, for tables that hold many kinds. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<any, any>;

export function nowIso(ctx: { ports: Pick<Ports, 'clock'> }): string {
  return new Date(ctx.ports.clock.now()).toISOString();
}
