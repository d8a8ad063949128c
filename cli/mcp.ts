/**
 * `marketkit mcp`: the local MCP process. MCP over stdio (newline-delimited JSON-RPC, stdout
 * carries nothing but protocol, logs go to stderr), answered by the same dispatch as the hosted
 * endpoint (core/mcp/methods.ts). Its tools (cli/mcp-tools.ts) reach the marketplace at
 * MARKETKIT_URL through the typed client, with the credential named in the environment.
 */
import { decodeJwt } from 'jose';
import * as v from 'valibot';
import { defaultResumeFile, fileResumeStore } from '../bindings/node/client/resume-store.js';
import { nodeFetch } from '../bindings/node/client/streaming-fetch.js';
import { createClient, exchangedSession, MarketKitError, type Credential } from '../client/index.js';
import { errorCatalogue, isApiError } from '../core/errors.js';
import { marketkitVersion } from '../core/marketplace.js';
import { isObject } from '../core/mcp/jsonrpc.js';
import { createMcpDispatch, toolRefusal, toolResult } from '../core/mcp/methods.js';
import { toolDefinition, type Tool } from '../core/pipeline/tool.js';
import { helpText, parseCommand, UsageError, type CommandSpec } from './args.js';
import { parseSize } from './size-flags.js';
import { adminTools, localTools, runLocalTool, type LocalContext } from './mcp-tools.js';
import { serveStdio, type McpIo, type StdioContext } from './mcp-stdio.js';

export const mcpCommand = {
  name: 'mcp',
  summary: 'Run the local MCP server over stdio for an AI assistant: listings, uploads of local files, Creator Studio (docs/mcp.md).',
  usage: 'MARKETKIT_API_TOKEN=smcp_... marketkit mcp [--url https://market.example]',
  options: { url: { type: 'string' } },
  help: [
    ['--url <url>', 'The marketplace site (env MARKETKIT_URL; default http://127.0.0.1:8787).'],
    ['MARKETKIT_API_TOKEN', 'A developer token (recommended): exchanged for short-lived session JWTs, renewed before they expire.'],
    ['MARKETKIT_SESSION_JWT', 'A session JWT, used as given and never renewed: calls fail with a clear error once it expires.'],
    ['MARKETKIT_SERVICE_KEY', 'The admin service key: admin automation only (the admin_* tools, no seller tools).'],
    ['MARKETKIT_RESUMABLE_THRESHOLD', 'upload_asset_file goes resumable from this size (default 64MiB), remembering uploads in progress in MARKETKIT_UPLOAD_STATE (default as marketkit upload).'],
  ],
  schema: v.object({
    url: v.pipe(
      v.string(),
      v.url('url (MARKETKIT_URL) must be an absolute http(s) URL'),
      v.regex(/^https?:\/\//, 'url (MARKETKIT_URL) must start with http:// or https://'),
      v.transform((url) => url.replace(/\/+$/, '')),
    ),
  }),
} satisfies CommandSpec<v.GenericSchema>;

export type { McpIo } from './mcp-stdio.js';

const processIo: McpIo = {
  input: process.stdin,
  write: (line) => process.stdout.write(`${line}\n`),
  log: (line) => process.stderr.write(`marketkit mcp: ${line}\n`),
  cwd: process.cwd(),
};

/** The claims of a JWT, unverified: only to read `sub` and `exp` of our own credential. */
function claimsOf(jwt: string): { sub?: string; exp?: number } {
  try {
    return decodeJwt(jwt);
  } catch {
    // Not a JWT (a developer token): no claims to read, and the server judges the credential.
    return {};
  }
}

/** MARKETKIT_SESSION_JWT: used as given; a refusal says whether it expired and what to do. */
function givenSession(jwt: string): Credential {
  return {
    token: async () => jwt,
    async renew() {
      const { exp } = claimsOf(jwt);
      const expired = exp !== undefined && exp * 1000 <= Date.now();
      const why = expired
        ? `MARKETKIT_SESSION_JWT expired at ${new Date(exp * 1000).toISOString()}; a session JWT is used as given and never renewed.`
        : 'The server refused MARKETKIT_SESSION_JWT (revoked, expired by the server’s clock, or not one this server accepts).';
      throw new MarketKitError({
        status: errorCatalogue.UNAUTHORIZED.status,
        code: 'UNAUTHORIZED',
        message: `${why} Set a fresh one and restart the MCP server, or set MARKETKIT_API_TOKEN to a developer token instead: this process renews its sessions itself.`,
      });
    },
  };
}

/** upload_asset_file's resumable uploads: remembered in the state file `marketkit upload` uses, from the threshold the environment sets. */
function resumableUploads(env: NodeJS.ProcessEnv): LocalContext['resumable'] {
  const threshold = env.MARKETKIT_RESUMABLE_THRESHOLD ? parseSize(env.MARKETKIT_RESUMABLE_THRESHOLD) : undefined;
  if (threshold === null) throw new UsageError('MARKETKIT_RESUMABLE_THRESHOLD must be a size such as 64MiB or 67108864 (bytes).');
  return { resumeStore: fileResumeStore(env.MARKETKIT_UPLOAD_STATE || defaultResumeFile(env)), ...(threshold !== undefined ? { resumableThreshold: threshold } : {}) };
}

interface Setup {
  credential: Credential;
  tools: readonly Tool<LocalContext>[];
  apiPath: string;
  banner: string;
}

function setupFor(env: NodeJS.ProcessEnv, url: string, log: (line: string) => void): Setup {
  const set = (['MARKETKIT_API_TOKEN', 'MARKETKIT_SESSION_JWT', 'MARKETKIT_SERVICE_KEY'] as const).filter((name) => env[name]?.trim());
  if (set.length === 0) {
    throw new UsageError('set MARKETKIT_API_TOKEN to a developer token (smcp_...); or MARKETKIT_SESSION_JWT, or MARKETKIT_SERVICE_KEY for admin automation.\nRun "marketkit mcp --help" for the options.');
  }
  if (set.length > 1) log(`${set.join(' and ')} are all set: using ${set[0]}.`);
  const value = env[set[0]!]!.trim();
  if (set[0] === 'MARKETKIT_API_TOKEN') {
    if (!value.startsWith('smcp_')) throw new UsageError('MARKETKIT_API_TOKEN must be a developer token (smcp_...); a session JWT goes in MARKETKIT_SESSION_JWT.');
    const session = exchangedSession({
      baseUrl: url,
      fetch: nodeFetch,
      developerToken: value,
      tokenName: 'MARKETKIT_API_TOKEN',
      onExchange: ({ expiresAt, scope }) => log(`session renewed until ${new Date(expiresAt).toISOString()} (scopes: ${scope}).`),
    });
    return { credential: session, tools: localTools, apiPath: '/api/v1', banner: 'MARKETKIT_API_TOKEN, exchanged for session JWTs at POST /api/v1/auth/session and renewed before they expire' };
  }
  if (set[0] === 'MARKETKIT_SESSION_JWT') {
    const { exp } = claimsOf(value);
    const until = exp ? `, valid until ${new Date(exp * 1000).toISOString()}` : '';
    return { credential: givenSession(value), tools: localTools, apiPath: '/api/v1', banner: `MARKETKIT_SESSION_JWT, used as given and not renewed${until}` };
  }
  log('MARKETKIT_SERVICE_KEY is for admin automation only: this process offers the admin surface’s actions (admin_* tools) and no seller tools. Do not hand it to an assistant acting for a seller.');
  return { credential: { token: async () => value }, tools: adminTools, apiPath: '/api/admin', banner: 'MARKETKIT_SERVICE_KEY (admin automation only)' };
}

const instructions = [
  'MarketKit marketplace, running on this computer: manage your listings, upload files from this computer, and plan your',
  'projects in Creator Studio. Listing: create_asset -> upload_asset_file with the local path (it uploads and confirms in',
  'one step) -> upload_asset_image for gallery images (optional) -> submit_asset. Studio: create_project -> create_board ->',
  'create_column -> create_card; move_card reorders; export_project and import_project copy a whole project.',
  'A refusal is a tool result with isError and { error, code }: the error says what to change.',
].join(' ');

/** The progress notifications of one call: increasing, at most every 100 ms, and the last one always. */
function progressNotifier(token: unknown, write: (message: object) => void): LocalContext['progress'] {
  if (typeof token !== 'string' && typeof token !== 'number') return () => {};
  let last = -1;
  let lastAt = 0;
  return (loaded, total, message) => {
    const now = Date.now();
    const final = total !== null && loaded >= total;
    if (loaded <= last || (!final && now - lastAt < 100)) return;
    last = loaded;
    lastAt = now;
    write({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: loaded, ...(total !== null ? { total } : {}), message } });
  };
}

export async function runMcp(argv: string[], env: NodeJS.ProcessEnv, out: (text: string) => void, io: McpIo = processIo): Promise<void> {
  const parsed = parseCommand(mcpCommand, argv, { url: env.MARKETKIT_URL ?? 'http://127.0.0.1:8787' });
  if (parsed.help) {
    out(`${helpText(mcpCommand)}\n\nStdout carries MCP messages only; logs go to stderr. See docs/mcp.md for an mcpServers entry.`);
    return;
  }
  const url = parsed.values.url;
  const setup = setupFor(env, url, io.log);
  // Nothing but protocol on stdout: a stray console.log from anywhere would corrupt the stream.
  console.log = console.error;
  const dispatch = localDispatch(url, setup, resumableUploads(env), io);
  io.log(`MarketKit ${marketkitVersion} over stdio for ${url}; credential: ${setup.banner}; ${setup.tools.length} tools.`);
  if (setup.apiPath === '/api/v1') {
    // Checked at start so that a bad token shows in the client's log at once, not at the first call.
    setup.credential.token().catch((error: unknown) => io.log(`no session yet: ${(error as Error).message}`));
  }
  await serveStdio(io, dispatch);
}

/** The MCP methods over the setup's tools, each call run through the typed client against `url`. */
function localDispatch(url: string, setup: Setup, resumable: LocalContext['resumable'], io: McpIo) {
  const client = createClient({
    baseUrl: url,
    // Uploads stream from disk with backpressure (Node's own fetch would hold the whole file).
    fetch: nodeFetch,
    apiPath: setup.apiPath,
    token: setup.credential,
    onRetry: ({ request, attempt, delayMs, status }) => io.log(`${request}: ${status ?? 'no answer'}, retry ${attempt} in ${Math.round(delayMs)} ms.`),
  });
  const byName = new Map(setup.tools.map((tool) => [tool.name, tool]));
  const accountId = async (): Promise<string> => {
    const { sub } = claimsOf(await setup.credential.token());
    return sub ?? (await client.getProfile()).id;
  };
  return createMcpDispatch<StdioContext>({
    serverInfo: { name: 'marketkit-local', title: 'MarketKit (local)', version: marketkitVersion },
    instructions,
    tools: setup.tools.map(toolDefinition),
    async callTool(name, args, params, context) {
      const meta = isObject(params._meta) ? params._meta : {};
      const local: LocalContext = { client, accountId, cwd: io.cwd, signal: context.signal, resumable, progress: progressNotifier(meta.progressToken, (message) => context.signal.aborted || context.write(message)) };
      try {
        return toolResult(await runLocalTool(byName.get(name)!, args, local));
      } catch (error) {
        if (isApiError(error)) return toolRefusal(error.toBody());
        if (!(error instanceof MarketKitError)) throw error;
        io.log(`${name}: ${error.status || 'no answer'} ${error.code}: ${error.message}`);
        if (error.code === 'NETWORK_ERROR') return toolRefusal({ error: `${error.message}. Is the marketplace running at ${url} (MARKETKIT_URL)?`, code: error.code });
        return toolRefusal(error.toBody());
      }
    },
  });
}
