/**
 * `marketkit serve`, in the steps `runServe` takes one after the other: parse the flags, check
 * what must hold before anything opens, open the stores (cli/serve-stores.ts), build the
 * marketplace (cli/serve-marketplace.ts), listen, start the background jobs, print the banner,
 * and stop cleanly on a signal.
 */
import { serveOnRuntime, type RuntimeServer } from './runtime-server.js';
import { limitFlags } from './limit-flags.js';
import { sizeFlags } from './size-flags.js';
import { rateLimitFlags } from './rate-limit-flags.js';
import { postgresFlags } from './postgres-flags.js';
import type { Marketplace } from '../core/marketplace.js';
import { everyInterval, releaseOnInterval } from '../core/moderation/release-schedule.js';
import { ConfigurationError } from '../core/errors.js';
import { helpText, parseCommand, UsageError } from './args.js';
import { dataDirFlag, sqliteDriverFlag } from './data-dir.js';
import { blobsKind, describeS3 } from './s3-options.js';
import { refuseServeContradictions, serveCommand, type ServeOptions } from './serve-command.js';
import { createErrorLog } from './serve-log.js';
import { printServeBanner, serveBannerJson, type ServeBanner } from './serve-banner.js';
import { dashboardOrigin, issueSignInLink } from '../core/admin/sign-in-links.js';
import { jobFailure, jobLinesAsJson } from './serve-jobs.js';
import { stopOnSignal } from './serve-start.js';
import { devSellerName, ensureDevSeller } from './dev-seller.js';
import { databaseUrlOf, refuseDatabaseContradictions } from './database.js';
import { requireSharedSecrets, secretsFromEnv } from './secrets.js';
import { openTelemetryTracing } from '../bindings/node/ports/opentelemetry.js';
import { metricsFlags, refuseMetricsOnPublicPort, serveMetrics, type MetricsListener } from './serve-metrics.js';
import { createServeLog, logFlags } from './serve-log-format.js';
import { closeServeStores, closeStoresAfterFailedStart, openServeStores, type ServeSetup, type ServeStores } from './serve-stores.js';
import { serveMarketplace } from './serve-marketplace.js';

export { serveCommand } from './serve-command.js';

/** How often serve releases scheduled listings that are due. */
export const releaseIntervalMs = 30_000;
/** How often serve sweeps uploads never confirmed, of deleted listings and replaced files (one instance at a time). */
export const sweepIntervalMs = 10 * 60_000;

export async function runServe(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const parsed = parseServeArgs(argv, env);
  if (parsed.help) {
    out(helpText(serveCommand));
    return;
  }
  const options = parsed.values;
  const setup = await checkServeSetup(argv, env, options);
  if (options['test-controls']) return serveWithTestControls(options, setup, out);
  const stores = await openServeStores(options, env, setup);
  const logs = openServeLogs(options, stores);
  // With port 0 the listen address is known only once listening; until then no request comes.
  let listening: string | undefined;
  // Spans through @opentelemetry/api when it is installed: a no-op until an SDK is registered
  // (node --import with the application's setup, docs/operations.md); without the package, none.
  const tracing = await openTelemetryTracing().catch(() => undefined);
  const marketplace = serveMarketplace({ options, setup, stores, ...logs, tracing, listenUrl: () => listening });
  const running = await serveOnRuntime(marketplace, { port: options.port, host: options.host, ...limitFlags.toLimits(options) }).catch(async (error: unknown) => {
    await closeStoresAfterFailedStart(stores);
    throw error;
  });
  listening = running.url;
  const jobs = await startServeJobs(marketplace, options);
  const banner = await serveBanner(marketplace, options, setup, stores, running, jobs);
  // Listening for Ctrl-C before saying so: a signal right after the banner must stop cleanly.
  const stopped = stopOnSignal(options.json ? null : out, () => stopServe(running, jobs, logs, stores));
  if (options.json) out(serveBannerJson(banner));
  else printServeBanner(banner, out);
  await stopped;
}

/** The flags, over the defaults the environment gives (a flag overrides its variable). */
function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv) {
  return parseCommand(serveCommand, argv, {
    port: env.PORT ?? 8787,
    ...limitFlags.defaults(env),
    ...sizeFlags.defaults(env),
    ...rateLimitFlags.defaults(env),
    ...postgresFlags.defaults(env),
    ...metricsFlags.defaults(env),
    ...logFlags.defaults(env),
    host: env.HOST ?? '127.0.0.1',
    'data-dir': dataDirFlag.default(env),
    'sqlite-driver': sqliteDriverFlag.default(env),
    ...(env.MARKETKIT_SITE_URL ? { 'site-url': env.MARKETKIT_SITE_URL } : {}),
    ...(env.MARKETKIT_CORS_ORIGINS ? { 'cors-origin': env.MARKETKIT_CORS_ORIGINS.split(',').filter((origin) => origin.trim() !== '') } : {}),
    ...(env.MARKETKIT_ALLOWED_HOSTS ? { 'allowed-host': env.MARKETKIT_ALLOWED_HOSTS.split(',').filter((host) => host.trim() !== '') } : {}),
    ...(env.MARKETKIT_STORAGE_QUOTA ? { 'storage-quota': env.MARKETKIT_STORAGE_QUOTA } : {}),
    ...(env.MARKETKIT_UPLOAD_GRACE_SECONDS ? { 'upload-grace': env.MARKETKIT_UPLOAD_GRACE_SECONDS } : {}),
    ...(env.MARKETKIT_UPLOAD_LEASE_SECONDS ? { 'upload-lease': env.MARKETKIT_UPLOAD_LEASE_SECONDS } : {}),
    ...(env.MARKETKIT_SUPERSEDED_RETENTION_SECONDS ? { 'superseded-retention': env.MARKETKIT_SUPERSEDED_RETENTION_SECONDS } : {}),
    ...(env.MARKETKIT_FAILED_AUTH_LIMIT ? { 'failed-auth-limit': env.MARKETKIT_FAILED_AUTH_LIMIT } : {}),
    ...(env.MARKETKIT_RATE_LIMIT_STORE ? { 'rate-limit-store': env.MARKETKIT_RATE_LIMIT_STORE } : {}),
  });
}

/** What must hold before anything is opened: the service key, the secrets several instances share, flags that contradict. */
async function checkServeSetup(argv: string[], env: NodeJS.ProcessEnv, options: ServeOptions): Promise<ServeSetup> {
  const serviceKey = env.MARKETKIT_SERVICE_KEY || undefined;
  // Checked before anything is opened, and named as the user set it.
  if (serviceKey !== undefined && serviceKey.length < 32) {
    throw new ConfigurationError('marketkit serve', 'MARKETKIT_SERVICE_KEY must be at least 32 characters (make one with: openssl rand -hex 32)');
  }
  // A database is served by any number of instances: what they must share is checked before anything opens.
  const database = databaseUrlOf(options['database-url'], env, options['database-schema']);
  const secrets = await secretsFromEnv(env);
  const tuning = postgresFlags.toOptions(argv, options, database !== null);
  refuseServeContradictions(argv, env, options, database !== null);
  refuseMetricsOnPublicPort(options);
  if (database) {
    refuseDatabaseContradictions(argv, options, database, blobsKind(options.blobs, env));
    requireSharedSecrets(secrets, `a database (${database.source}) may be served by several instances`);
  }
  return { serviceKey, database, secrets, tuning };
}

/** --test-controls: the testing kit instead, loaded only then (production serve never loads testing/). */
async function serveWithTestControls(options: ServeOptions, { serviceKey }: ServeSetup, out: (line: string) => void): Promise<void> {
  // The controls reset and reseed all data: never on a data directory someone keeps.
  if (!options.memory) throw new UsageError('--test-controls needs --memory: the test controls reset and reseed all data, so they never run on a SQLite data directory');
  if (options.blobs !== undefined && options.blobs !== 'memory') throw new UsageError('--test-controls keeps blobs in memory: leave out --blobs');
  const { serveTestControls } = await import('./serve-test-controls.js');
  return serveTestControls({ port: options.port, host: options.host, siteUrl: options['site-url'], serviceKey, json: options.json }, out);
}

interface ServeLogs {
  log: ReturnType<typeof createServeLog>;
  errorLog: ReturnType<typeof createErrorLog>;
  flushErrors: ReturnType<typeof setInterval>;
}

/** One short line per failure, bounded per client and per kind of error, the data directory never shown. */
function openServeLogs(options: ServeOptions, { data, pg }: ServeStores): ServeLogs {
  const log = createServeLog({ format: options['log-format'], level: options['log-level'], out: (line) => console.error(line) });
  if (log.format === 'json') jobLinesAsJson((line) => console.error(line));
  const errorLog = createErrorLog({ write: (line) => console.error(line), format: log.format, hidePaths: data ? [data.dir, data.blobsRoot] : pg?.blobsRoot ? [pg.blobsRoot] : [] });
  const flushErrors = setInterval(() => errorLog.flush(), 60_000);
  flushErrors.unref();
  return { log, errorLog, flushErrors };
}

interface ServeJobs {
  metricsListener: MetricsListener | null;
  releases: { stop(): void };
  sweeps: { stop(): void };
  deliveries: ReturnType<Marketplace['webhooks']['startWorker']> | null;
}

/** The metrics listener and the background jobs: releases, sweeps, webhook deliveries. */
async function startServeJobs(marketplace: Marketplace, options: ServeOptions): Promise<ServeJobs> {
  const metricsPort = options['metrics-port'];
  const metricsListener = metricsPort === undefined ? null : await serveMetrics(marketplace, options['metrics-host'], metricsPort);
  // Scheduled listings become pending once due; a no-op when nothing is.
  // On one instance at a time (a lease in storage), when several serve one database.
  const releases = releaseOnInterval(marketplace.maintenance, releaseIntervalMs, jobFailure('releasing scheduled listings'));
  // Uploads never confirmed, of deleted listings and replaced files, idempotency keys past their
  // day and webhook events past their 30 days: removed once, then every 10 minutes.
  const sweep = () => Promise.all([marketplace.maintenance.sweepUploads(), marketplace.maintenance.purgeRetryKeys(), marketplace.maintenance.purgeWebhookEvents()]);
  const sweepFailed = jobFailure('sweeping uploads');
  void sweep().catch(sweepFailed);
  const sweeps = everyInterval(sweep, sweepIntervalMs, sweepFailed);
  // Every instance delivers, unless told not to: the claims' leases share the work (docs/webhooks.md).
  const deliveries = options['no-webhook-delivery'] ? null : marketplace.webhooks.startWorker();
  return { metricsListener, releases, sweeps, deliveries };
}

/** The jobs, the server and the listeners first, then the stores they used. */
function stopServe(running: RuntimeServer, jobs: ServeJobs, logs: ServeLogs, stores: ServeStores): Promise<void> {
  jobs.releases.stop();
  jobs.sweeps.stop();
  clearInterval(logs.flushErrors);
  logs.errorLog.flush();
  return Promise.all([running.close(), jobs.deliveries?.stop(), jobs.metricsListener?.close()])
    // Stopping: what fails to close cleanly goes with the process all the same, and the stores must still close.
    .catch(() => {})
    .then(() => closeServeStores(stores));
}

/** What the banner says: where it serves, on what, the dev seller's token, and with --fixtures the conformance command line. */
async function serveBanner(marketplace: Marketplace, options: ServeOptions, setup: ServeSetup, stores: ServeStores, running: RuntimeServer, jobs: ServeJobs): Promise<ServeBanner> {
  const { database, serviceKey, tuning } = setup;
  const { s3, pg, data, blobsChoice } = stores;
  const devSeller = await ensureDevSeller(marketplace);
  const base = options['site-url'] ?? running.url;
  // Fresh accounts each start (their names carry the time), so a run never meets a revoked fixture.
  // The conformance suite's code is loaded only then: production serve never loads conformance/.
  const certify = options.fixtures ? await fixturesCommandLine(marketplace, base) : null;
  const newToken = `npx marketkit token create --account ${devSellerName} --name dev --all-scopes${
    // Never the database URL itself: it may hold a password.
    database ? (database.source === '--database-url' ? ' --database-url <url>' : '') : options['data-dir'] === dataDirFlag.default({}) ? '' : ` --data-dir ${options['data-dir']}`
  }`;
  return {
    base,
    listenUrl: running.url,
    siteUrl: options['site-url'],
    allowedHosts: options['allowed-host'],
    admin: serviceKey !== undefined,
    autoApprove: options['auto-approve'],
    rateLimits: rateLimitFlags.describe(stores.givenLimits),
    corsOrigins: options['cors-origin'],
    webhooks: { delivering: jobs.deliveries !== null, allowLocal: options['webhooks-allow-local'] },
    dashboard: marketplace.settings.dashboard ? `${dashboardOrigin(base)}${marketplace.settings.dashboard.basePath}` : null,
    // With the dev token (the first start only), a sign-in link for the dev seller: the Quick start's way into the dashboard.
    devSignIn: marketplace.settings.dashboard && devSeller.token ? await devSignInLink(marketplace, devSeller.id, base) : null,
    storage: pg ? { kind: 'postgres', where: pg.where, source: database!.source, maxStalenessMs: tuning.maxStalenessMs } : data ? { kind: 'sqlite', database: data.database } : { kind: 'memory' },
    blobsWhere: s3 ? describeS3(s3) : blobsChoice === 'memory' ? 'memory' : (data?.blobsRoot ?? pg?.blobsRoot ?? 'memory'),
    s3: s3 !== null,
    devSeller,
    newToken,
    certify,
    ...(jobs.metricsListener ? { metricsUrl: jobs.metricsListener.url } : {}),
  };
}

/** A one-time sign-in link to the dashboard for the dev seller (docs/dashboard.md). */
async function devSignInLink(marketplace: Marketplace, accountId: string, base: string): Promise<string | null> {
  const account = await marketplace.ports.storage.getAccount(accountId);
  return account ? (await issueSignInLink(marketplace.ports, marketplace.settings, account, base)).url : null;
}

async function fixturesCommandLine(marketplace: Marketplace, base: string): Promise<string> {
  const { conformanceCommandLine, createFixtureAccounts } = await import('../conformance/fixture-accounts.js');
  return conformanceCommandLine(base, await createFixtureAccounts(marketplace));
}
