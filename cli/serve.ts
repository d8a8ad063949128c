import { memoryBlobs, memoryStorage, memoryStudio } from '../adapters/memory/index.js';
import { nodeApiReference } from '../bindings/node/reference/reference-assets.js';
import { serveOnRuntime } from './runtime-server.js';
import { limitFlags } from './limit-flags.js';
import { sizeFlags } from './size-flags.js';
import { rateLimitFlags } from './rate-limit-flags.js';
import { postgresFlags } from './postgres-flags.js';
import { createMarketplace } from '../core/marketplace.js';
import { everyInterval, releaseOnInterval } from '../core/moderation/release-schedule.js';
import { ConfigurationError } from '../core/errors.js';
import { conformanceCommandLine, createFixtureAccounts } from '../conformance/fixture-accounts.js';
import { helpText, parseCommand, UsageError } from './args.js';
import { dataDirFlag, openDataDir, sqliteDriverFlag } from './data-dir.js';
import { join } from 'node:path';
import { sqliteRateLimiter, sqliteStudio } from '../adapters/sqlite/index.js';
import { blobsKind, checkS3Reachable, describeS3, refuseStrayS3Flags, s3BlobsFromCli } from './s3-options.js';
import { refuseServeContradictions, serveCommand } from './serve-command.js';
import { createErrorLog } from './serve-log.js';
import { printServeBanner, serveBannerJson, type ServeBanner } from './serve-banner.js';
import { connectionLost, jobFailure, jobLinesAsJson } from './serve-jobs.js';
import { stopOnSignal } from './serve-start.js';
import { devSellerName, ensureDevSeller } from './dev-seller.js';
import { databaseUrlOf, openServeDatabase, refuseDatabaseContradictions } from './database.js';
import { requireSharedSecrets, secretsFromEnv } from './secrets.js';
import { nodeWebhookSender } from '../bindings/node/ports/webhook-sender.js';
import { nodeHashing } from '../bindings/node/ports/hashing.js';
import { openTelemetryTracing } from '../bindings/node/ports/opentelemetry.js';
import { metricsFlags, refuseMetricsOnPublicPort, serveMetrics } from './serve-metrics.js';
import { createServeLog, logFlags } from './serve-log-format.js';

export { serveCommand } from './serve-command.js';

/** How often serve releases scheduled listings that are due. */
export const releaseIntervalMs = 30_000;
/** How often serve sweeps uploads never confirmed, of deleted listings and replaced files (one instance at a time). */
export const sweepIntervalMs = 10 * 60_000;

export async function runServe(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const parsed = parseCommand(serveCommand, argv, {
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
    ...(env.MARKETKIT_FAILED_AUTH_LIMIT ? { 'failed-auth-limit': env.MARKETKIT_FAILED_AUTH_LIMIT } : {}),
    ...(env.MARKETKIT_RATE_LIMIT_STORE ? { 'rate-limit-store': env.MARKETKIT_RATE_LIMIT_STORE } : {}),
  });
  if (parsed.help) {
    out(helpText(serveCommand));
    return;
  }
  const options = parsed.values;
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
  if (options['test-controls']) {
    // The controls reset and reseed all data: never on a data directory someone keeps.
    if (!options.memory) throw new UsageError('--test-controls needs --memory: the test controls reset and reseed all data, so they never run on a SQLite data directory');
    if (options.blobs !== undefined && options.blobs !== 'memory') throw new UsageError('--test-controls keeps blobs in memory: leave out --blobs');
    const { serveTestControls } = await import('./serve-test-controls.js');
    return serveTestControls({ port: options.port, host: options.host, siteUrl: options['site-url'], serviceKey, json: options.json }, out);
  }
  const blobsChoice = blobsKind(options.blobs, env);
  refuseStrayS3Flags(options, blobsChoice);
  if (blobsChoice === 'fs' && options.memory) throw new UsageError('--blobs fs keeps files in the data directory, and --memory has none: use --blobs memory or --blobs s3 with --memory');
  // Checked before anything is opened: a bucket that does not answer stops the start.
  const s3 = blobsChoice === 's3' ? s3BlobsFromCli(options, env) : null;
  if (s3) await checkS3Reachable(s3);
  // With a database, the data directory holds only the files of --blobs fs (and no secrets: they come from the environment).
  const pg = database ? await openServeDatabase(database, { blobs: blobsChoice, dataDir: options['data-dir'], onLost: connectionLost, tuning }) : null;
  const data = options.memory || pg ? null : await openDataDir(options['data-dir'], { create: true, driver: options['sqlite-driver'] });
  // Several servers on one data directory share each caller's rate-limit budget through this file.
  const givenLimits = rateLimitFlags.toLimits(options);
  const rateLimits = Object.keys(givenLimits).length > 0 ? givenLimits : undefined;
  // Every instance must count against one budget: with a database, the database (or Redis) keeps
  // the counts; with a data directory, a file beside it; --rate-limit-store redis://... anywhere.
  const store = options['rate-limit-store'] ?? (pg ? 'postgres' : null);
  if (store === 'postgres' && !database) throw new UsageError('--rate-limit-store postgres counts in the --database-url database: give --database-url, or a redis:// URL');
  const limits = rateLimits ? { limits: rateLimits } : {};
  const rateLimiter =
    store === 'postgres'
      ? await (await import('../adapters/postgres/index.js')).postgresRateLimiter({ url: database!.url, schema: database!.schema, ...limits })
      : store
        ? await (await import('../adapters/redis/index.js')).redisRateLimiter({ url: store, ...limits })
        : data
          ? await sqliteRateLimiter({ path: join(data.dir, 'rate-limits.db'), ...(data.driver ? { driver: data.driver } : {}), ...limits })
          : null;
  // Creator Studio keeps its records in the same database file as the listings (docs/studio.md).
  const studio = data ? await sqliteStudio({ path: data.database, ...(data.driver ? { driver: data.driver } : {}) }) : null;
  // Uploads in progress live where every instance (and the next start) finds them: the database, or
  // the data directory's file, on the storage's own pool or connection (its options, closed with it).
  const uploadStates = (pg ?? data)?.storage.uploadStates;
  // One short line per failure, bounded per client and per kind of error, the data directory never shown.
  const log = createServeLog({ format: options['log-format'], level: options['log-level'], out: (line) => console.error(line) });
  if (log.format === 'json') jobLinesAsJson((line) => console.error(line));
  const errorLog = createErrorLog({ write: (line) => console.error(line), format: log.format, hidePaths: data ? [data.dir, data.blobsRoot] : pg?.blobsRoot ? [pg.blobsRoot] : [] });
  const flushErrors = setInterval(() => errorLog.flush(), 60_000);
  flushErrors.unref();
  // With port 0 the listen address is known only once listening; until then no request comes.
  let listening: string | undefined;
  // Local webhook targets (http, loopback) for local testing only: the same rule when saved and when sent.
  const webhookTargets = { allowHttp: options['webhooks-allow-local'], allowPrivateAddresses: options['webhooks-allow-local'] };
  // Spans through @opentelemetry/api when it is installed: a no-op until an SDK is registered
  // (node --import with the application's setup, docs/operations.md); without the package, none.
  const tracing = await openTelemetryTracing().catch(() => undefined);
  const marketplace = createMarketplace({
    onError: errorLog.onError,
    ...(tracing ? { tracing } : {}),
    storage: pg?.storage ?? data?.storage ?? memoryStorage(),
    studio: pg?.studio ?? studio ?? memoryStudio(),
    ...(uploadStates ? { uploadStates } : {}),
    // node:crypto for the single PUT's SHA-256 (Bun and Deno have it too): several times the WASM hasher's rate.
    hashing: nodeHashing(),
    blobs: s3 ?? pg?.blobs ?? (blobsChoice !== 'memory' && data ? data.blobs : memoryBlobs()),
    // The environment's secrets first (the same on every instance), else the data directory's.
    ...(secrets.signingSecret ?? data?.signingSecret ? { signingSecret: secrets.signingSecret ?? data?.signingSecret } : {}),
    ...(secrets.sessionKey ?? data?.sessionKey ? { sessionKey: secrets.sessionKey ?? data?.sessionKey } : {}),
    ...(rateLimiter ? { rateLimiter } : rateLimits ? { rateLimits } : {}),
    apiReference: nodeApiReference(),
    ...(options['site-url'] ? { siteUrl: options['site-url'] } : {}),
    // Without a site URL, issued URLs are built on the listen address, or on a Host listed here (never another Host).
    allowedHosts: options['allowed-host'],
    // Browser apps on these origins: REST and its PUTs; the MCP endpoint too, by name (it takes no *).
    corsOrigins: options['cors-origin'],
    mcp: { allowedOrigins: options['cors-origin'].filter((origin) => origin !== '*') },
    listenUrl: () => listening,
    // The admin surface exists only when a service key is given (docs/moderation.md).
    ...(serviceKey ? { serviceKey } : {}),
    ...(options['storage-quota'] ? { storageQuotaBytes: options['storage-quota'] } : {}),
    ...(options['upload-grace'] ? { uploadGraceSeconds: options['upload-grace'] } : {}),
    ...(options['upload-lease'] ? { uploadLeaseSeconds: options['upload-lease'] } : {}),
    ...sizeFlags.toOptions(options),
    // Off unless asked for: a marketplace reviews what it publishes.
    ...(options['auto-approve'] ? { moderation: { onSubmit: 'auto-approve' as const } } : {}),
    webhooks: { ...webhookTargets, sender: nodeWebhookSender(webhookTargets), timeoutMs: options['webhook-timeout'] * 1000 },
    // Counted only when someone can read them: nothing on the request path otherwise.
    metrics: options['metrics-port'] !== undefined,
    ...(log.enabled('info') ? { onRequest: log.answered } : {}),
  });
  const running = await serveOnRuntime(marketplace, { port: options.port, host: options.host, ...limitFlags.toLimits(options) }).catch(async (error: unknown) => {
    rateLimiter?.close();
    await data?.close();
    await pg?.close();
    throw error;
  });
  listening = running.url;
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
  const devSeller = await ensureDevSeller(marketplace);
  const base = options['site-url'] ?? running.url;
  // Fresh accounts each start (their names carry the time), so a run never meets a revoked fixture.
  const certify = options.fixtures ? conformanceCommandLine(base, await createFixtureAccounts(marketplace)) : null;
  const blobsWhere = s3 ? describeS3(s3) : blobsChoice === 'memory' ? 'memory' : (data?.blobsRoot ?? pg?.blobsRoot ?? 'memory');
  const newToken = `npx marketkit token create --account ${devSellerName} --name dev --all-scopes${
    // Never the database URL itself: it may hold a password.
    database ? (database.source === '--database-url' ? ' --database-url <url>' : '') : options['data-dir'] === dataDirFlag.default({}) ? '' : ` --data-dir ${options['data-dir']}`
  }`;

  // Listening for Ctrl-C before saying so: a signal right after the banner must stop cleanly.
  const stopped = stopOnSignal(options.json ? null : out, () => {
    releases.stop();
    sweeps.stop();
    clearInterval(flushErrors);
    errorLog.flush();
    return Promise.all([running.close(), deliveries?.stop(), metricsListener?.close()])
      .catch(() => {})
      .then(() => rateLimiter?.close())
      .then(() => studio?.close())
      .then(() => data?.close())
      .then(() => pg?.close());
  });

  const banner: ServeBanner = {
    base,
    listenUrl: running.url,
    siteUrl: options['site-url'],
    allowedHosts: options['allowed-host'],
    admin: serviceKey !== undefined,
    autoApprove: options['auto-approve'],
    rateLimits: rateLimitFlags.describe(givenLimits),
    corsOrigins: options['cors-origin'],
    webhooks: { delivering: deliveries !== null, allowLocal: options['webhooks-allow-local'] },
    storage: pg ? { kind: 'postgres', where: pg.where, source: database!.source, maxStalenessMs: tuning.maxStalenessMs } : data ? { kind: 'sqlite', database: data.database } : { kind: 'memory' },
    blobsWhere,
    s3: s3 !== null,
    devSeller,
    newToken,
    certify,
    ...(metricsListener ? { metricsUrl: metricsListener.url } : {}),
  };
  if (options.json) out(serveBannerJson(banner));
  else printServeBanner(banner, out);

  await stopped;
}
