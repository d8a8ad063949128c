import * as v from 'valibot';
import { PortNumber, UsageError, type CommandSpec } from './args.js';
import { dataDirFlag, sqliteDriverFlag } from './data-dir.js';
import { databaseSchemaFlag, databaseUrlFlag } from './database.js';
import { limitFlags } from './limit-flags.js';
import { sizeFlags } from './size-flags.js';
import { rateLimitFlags } from './rate-limit-flags.js';
import { postgresFlags } from './postgres-flags.js';
import { s3Flags } from './s3-options.js';
import { secretsHelp } from './secrets.js';
import { metricsFlags } from './serve-metrics.js';
import { logFlags } from './serve-log-format.js';

/** `marketkit serve`'s flags: their help and the schema that checks them. */
export const serveCommand = {
  name: 'serve',
  summary: 'Serve the marketplace API (REST under /api/v1) on Node, Bun or Deno.',
  usage: 'marketkit serve [--port 8787] [--host 127.0.0.1] [--data-dir ./.marketkit | --memory | --database-url postgres://...] [--blobs fs|s3|memory --s3-bucket ...] [--json]',
  options: {
    port: { type: 'string', short: 'p' },
    host: { type: 'string' },
    ...dataDirFlag.option,
    ...sqliteDriverFlag.option,
    memory: { type: 'boolean' },
    ...databaseUrlFlag.option,
    ...databaseSchemaFlag.option,
    'site-url': { type: 'string' },
    'allowed-host': { type: 'string', multiple: true },
    'cors-origin': { type: 'string', multiple: true },
    json: { type: 'boolean' },
    'test-controls': { type: 'boolean' },
    'auto-approve': { type: 'boolean' },
    fixtures: { type: 'boolean' },
    'storage-quota': { type: 'string' },
    'upload-grace': { type: 'string' },
    'upload-lease': { type: 'string' },
    'superseded-retention': { type: 'string' },
    'failed-auth-limit': { type: 'string' },
    'rate-limit-store': { type: 'string' },
    'no-webhook-delivery': { type: 'boolean' },
    'no-dashboard': { type: 'boolean' },
    'self-sign-up': { type: 'boolean' },
    'webhooks-allow-local': { type: 'boolean' },
    'webhook-timeout': { type: 'string' },
    ...postgresFlags.options,
    ...metricsFlags.options,
    ...logFlags.options,
    ...s3Flags.options,
    ...sizeFlags.options,
    ...limitFlags.options,
    ...rateLimitFlags.options,
  },
  help: [
    ['-p, --port <n>', 'Port to listen on (env PORT; default 8787; 0 picks a free one).'],
    ['--host <addr>', 'Address to listen on (env HOST; default 127.0.0.1).'],
    [...dataDirFlag.help],
    [...sqliteDriverFlag.help],
    ['--memory', 'Keep all data in memory instead (lost when the server stops).'],
    [
      databaseUrlFlag.help[0],
      `${databaseUrlFlag.help[1]} Several instances may serve one database: they need --blobs s3 (or --blobs fs with --data-dir holding only the files, on one machine), and the same MARKETKIT_SIGNING_SECRET and MARKETKIT_SESSION_KEY (below), without which the start is refused. Run "marketkit migrate" in a deploy pipeline first, or let the first instance migrate (docs/deploy.md).`,
    ],
    [...databaseSchemaFlag.help],
    ...postgresFlags.help,
    ['--site-url <url>', 'The public address clients reach, if not http://host:port (env MARKETKIT_SITE_URL).'],
    ['--allowed-host <host>', 'A host name (or name:port) whose requests get URLs on their own Host, when no --site-url is set; repeatable (env MARKETKIT_ALLOWED_HOSTS, comma-separated). Other hosts get the listen address.'],
    ['--cors-origin <origin>', 'An origin (https://app.example) whose browser pages may call the REST API, its signed-URL PUTs and /api/mcp; * for any page (REST only); repeatable (env MARKETKIT_CORS_ORIGINS, comma-separated; default none; docs/rest.md).'],
    ['--json', 'Print one JSON line (url, storage, dev seller and token) instead of the text, for scripts.'],
    ['--test-controls', 'With --memory only: serve the testing kit, its controls under /__marketkit/ (docs/testing.md).'],
    ['--auto-approve', 'Publish submitted listings at once instead of queueing them for review (local development; docs/moderation.md).'],
    ['--fixtures', 'Create the conformance suite’s fixture accounts and print the marketkit conformance command line with their tokens (docs/conformance.md).'],
    ['--storage-quota <bytes>', 'The most bytes one account\'s uploads may hold; past it 413 STORAGE_QUOTA_EXCEEDED (env MARKETKIT_STORAGE_QUOTA; default none; docs/security.md).'],
    ...sizeFlags.help,
    ['--upload-grace <s>', 'How long after its URL expired an upload never confirmed is kept before the sweep removes it (env MARKETKIT_UPLOAD_GRACE_SECONDS; default 3600).'],
    ['--upload-lease <s>', 'How long a resumable append holds its upload: when its instance dies, another continues the upload after at most this long (env MARKETKIT_UPLOAD_LEASE_SECONDS; default 30).'],
    ['--superseded-retention <s>', 'How long a superseded version of a published listing keeps its file for a rollback before the sweep removes it; the live version\'s rollback target is always kept (env MARKETKIT_SUPERSEDED_RETENTION_SECONDS; default 2592000, 30 days).'],
    ['--rate-limit-store <store>', 'Where every instance counts rate limits: postgres (the --database-url database; the default with one) or a redis:// URL (env MARKETKIT_RATE_LIMIT_STORE). With a data directory the counts live in a file beside it; with --memory, in this process (docs/deploy.md).'],
    ...rateLimitFlags.help,
    ['--no-dashboard', 'Do not serve the dashboard at /dashboard (sellers sign in there with a link from marketkit admin login-link; docs/dashboard.md).'],
    ['--self-sign-up', 'Let anyone make an account on the dashboard\'s sign-up page with a username and a passkey; its seller status is pending until an operator approves it on the dashboard\'s account page (off by default; docs/dashboard.md, "Self sign-up").'],
    ['--no-webhook-delivery', 'Do not run the webhook delivery worker in this instance (another instance on the same database delivers; docs/webhooks.md). Events are still recorded.'],
    ['--webhook-timeout <s>', 'Seconds each webhook delivery attempt may take, connecting included (1 to 60; default 10). A worker that dies mid-attempt leaves the delivery to another after this plus 15 s.'],
    ['--webhooks-allow-local', 'Accept and deliver to http:// webhook URLs and loopback, private and link-local addresses: for local testing only, never on a server others can reach (docs/webhooks.md, "Safety").'],
    ['--failed-auth-limit <n>', 'Failed authentications a client address may make a minute; past it, 429 before any credential is checked (env MARKETKIT_FAILED_AUTH_LIMIT; default 20; behind a proxy all clients share its address: docs/security.md).'],
    ...metricsFlags.help,
    ...logFlags.help,
    ...s3Flags.help,
    ...limitFlags.help,
    ...secretsHelp,
  ],
  schema: v.object({
    port: PortNumber,
    host: v.pipe(v.string(), v.minLength(1, 'host must not be empty')),
    'data-dir': dataDirFlag.schema,
    'sqlite-driver': sqliteDriverFlag.schema,
    memory: v.optional(v.boolean(), false),
    'database-url': databaseUrlFlag.schema,
    'database-schema': databaseSchemaFlag.schema,
    'site-url': v.optional(v.pipe(v.string(), v.url('site-url must be an absolute http(s) URL'))),
    'allowed-host': v.optional(
      v.array(v.pipe(v.string(), v.trim(), v.regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/, 'allowed-host must be a host name such as market.example or market.example:8443 (no scheme, no path)'))),
      [],
    ),
    'cors-origin': v.optional(
      v.array(v.pipe(v.string(), v.trim(), v.regex(/^(\*|https?:\/\/[^/?#\s]+)$/, 'cors-origin must be an origin such as https://app.example (scheme and host, no path, no trailing slash) or *'))),
      [],
    ),
    json: v.optional(v.boolean(), false),
    'test-controls': v.optional(v.boolean(), false),
    'auto-approve': v.optional(v.boolean(), false),
    'no-webhook-delivery': v.optional(v.boolean(), false),
    'no-dashboard': v.optional(v.boolean(), false),
    'self-sign-up': v.optional(v.boolean(), false),
    'webhooks-allow-local': v.optional(v.boolean(), false),
    'webhook-timeout': v.optional(
      v.pipe(
        v.union([v.string(), v.number()]),
        v.transform(Number),
        v.check((n) => Number.isInteger(n) && n >= 1 && n <= 60, 'webhook-timeout must be a whole number of seconds from 1 to 60'),
      ),
      10,
    ),
    fixtures: v.optional(v.boolean(), false),
    'storage-quota': v.optional(wholeNumber('storage-quota')),
    'upload-grace': v.optional(wholeNumber('upload-grace')),
    'upload-lease': v.optional(wholeNumber('upload-lease')),
    'superseded-retention': v.optional(wholeNumber('superseded-retention')),
    'failed-auth-limit': v.optional(wholeNumber('failed-auth-limit')),
    'rate-limit-store': v.optional(
      v.pipe(v.string(), v.regex(/^(postgres|rediss?:\/\/.+)$/, 'rate-limit-store must be postgres (the --database-url database) or a redis:// (or rediss://) URL')),
    ),
    ...postgresFlags.entries,
    ...metricsFlags.entries,
    ...logFlags.entries,
    ...s3Flags.entries,
    ...sizeFlags.entries,
    ...limitFlags.entries,
    ...rateLimitFlags.entries,
  }),
} satisfies CommandSpec<v.GenericSchema>;

/** `serve`'s flags once parsed and checked, the environment's defaults filled in. */
export type ServeOptions = v.InferOutput<typeof serveCommand.schema>;

function wholeNumber(flag: string) {
  return v.pipe(
    v.union([v.string(), v.number()]),
    v.transform(Number),
    v.check((n) => Number.isSafeInteger(n) && n > 0, `${flag} must be a whole number above 0`),
  );
}

/** Where a setting came from, for a message: the flag, else its environment variable, else null (not given). */
function sourceOf(argv: readonly string[], env: NodeJS.ProcessEnv, flag: string, variable: string): string | null {
  if (argv.some((arg) => arg === `--${flag}` || arg.startsWith(`--${flag}=`))) return `--${flag}`;
  return env[variable] ? variable : null;
}

const drop = (source: string) => (source.startsWith('--') ? `drop ${source}` : `unset ${source}`);

/**
 * Options of `serve` that cannot hold together: an error that names both and which to drop,
 * instead of one of them silently losing (docs/cli.md, "serve"). Those that involve a database
 * are refuseDatabaseContradictions' (cli/database.ts).
 */
export function refuseServeContradictions(argv: readonly string[], env: NodeJS.ProcessEnv, values: { memory: boolean; 'site-url'?: string | undefined; 'no-dashboard'?: boolean; 'self-sign-up'?: boolean }, database: boolean): void {
  if (values['no-dashboard'] && values['self-sign-up']) throw new UsageError('--self-sign-up opens a sign-up page on the dashboard, and --no-dashboard turns the dashboard off: drop one of them.');
  const dataDir = sourceOf(argv, env, 'data-dir', 'MARKETKIT_DATA_DIR');
  const driver = sourceOf(argv, env, 'sqlite-driver', 'MARKETKIT_SQLITE_DRIVER');
  if (values.memory && dataDir) throw new UsageError(`--memory keeps everything in this process and nothing on disk, and ${dataDir} names a data directory: ${drop(dataDir)}, or drop --memory to keep the data there.`);
  if (values.memory && driver) throw new UsageError(`--memory uses no SQLite, and ${driver} picks a SQLite driver: ${drop(driver)}, or drop --memory.`);
  if (database && driver) throw new UsageError(`with a database the data is in PostgreSQL, and ${driver} picks a SQLite driver: ${drop(driver)}.`);
  const allowed = sourceOf(argv, env, 'allowed-host', 'MARKETKIT_ALLOWED_HOSTS');
  const site = sourceOf(argv, env, 'site-url', 'MARKETKIT_SITE_URL');
  if (values['site-url'] && allowed && site) {
    throw new UsageError(`${site} fixes every URL the server builds, so ${allowed} (hosts whose requests get URLs on their own Host) would never apply: ${drop(allowed)}, or ${drop(site)}.`);
  }
}
