import * as v from 'valibot';
import { defaultTokenScopes, scopes } from '../core/domain/scopes.js';
import { createMarketplace } from '../core/marketplace.js';
import { helpText, parseCommand, UsageError, type CommandSpec } from './args.js';
import { dataDirFlag } from './data-dir.js';
import { databaseSchemaFlag, databaseUrlFlag, openCommandStore, type CommandStore } from './database.js';
import { tokenView } from '../core/views.js';
import { revokeTokenWithEvent } from '../core/changes/outbox-events.js';
import { webCryptoIds } from '../core/ports/ids.js';
import { memoryBlobs } from '../adapters/memory/index.js';
import { terminalText, terminalValues } from './terminal-text.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const tokenCreateCommand = {
  name: 'token create',
  summary: 'Create a developer token for an account of the server’s data directory or database; it is shown once.',
  usage: 'marketkit token create --account <id or username> [--name <name>] [--scope <scope>]... [--all-scopes] [--expires-in <days|never>] [--data-dir <dir> | --database-url <url>] [--database-schema <name>] [--json]',
  options: {
    account: { type: 'string' },
    name: { type: 'string' },
    scope: { type: 'string', multiple: true },
    'all-scopes': { type: 'boolean' },
    'expires-in': { type: 'string' },
    ...dataDirFlag.option,
    ...databaseUrlFlag.option,
    ...databaseSchemaFlag.option,
    json: { type: 'boolean' },
  },
  help: [
    ['--account <id|username>', 'The account the token acts for (the dev seller is dev-seller).'],
    ['--name <name>', 'A name to tell the token apart in GET /api/v1/tokens (default "cli").'],
    ['--scope <scope>', `A scope to grant; repeat for more. One of ${scopes.join(', ')}. Default: ${defaultTokenScopes.join(', ')}.`],
    ['--all-scopes', "Grant every scope: the spec's six, studio:read, studio:write, webhooks:read and webhooks:write."],
    ['--expires-in <days|never>', 'Days until the token stops working, or never (default never).'],
    [...dataDirFlag.help],
    [...databaseUrlFlag.help], [...databaseSchemaFlag.help],
    ['--json', 'Print the token and its record as one JSON object, for scripts.'],
  ],
  schema: v.object({
    // Checked after parsing: valibot's message for a missing key cannot be set.
    account: v.optional(v.string()),
    name: v.optional(v.pipe(v.string(), v.minLength(1, 'name must not be empty'), v.maxLength(100, 'name must be at most 100 characters')), 'cli'),
    scope: v.optional(v.array(v.picklist(scopes, `scope must be one of ${scopes.join(', ')}`))),
    'all-scopes': v.optional(v.boolean(), false),
    'expires-in': v.optional(
      v.union(
        [v.literal('never'), v.pipe(v.string(), v.regex(/^\d{1,4}$/), v.transform(Number), v.minValue(1), v.maxValue(3650))],
        'expires-in must be a number of days from 1 to 3650, or never',
      ),
      'never',
    ),
    'data-dir': dataDirFlag.schema,
    'database-url': databaseUrlFlag.schema, 'database-schema': databaseSchemaFlag.schema,
    json: v.optional(v.boolean(), false),
  }),
} satisfies CommandSpec<v.GenericSchema>;

const accountFlag = {
  option: { account: { type: 'string' } } as const,
  help: ['--account <id|username>', 'The account whose tokens these are (the dev seller is dev-seller).'] as [string, string],
};

export const tokenListCommand = {
  name: 'token list',
  summary: 'List the tokens of an account that are not revoked, newest first (never their secrets).',
  usage: 'marketkit token list --account <id or username> [--data-dir <dir> | --database-url <url>] [--database-schema <name>] [--json]',
  options: { ...accountFlag.option, ...dataDirFlag.option, ...databaseUrlFlag.option, ...databaseSchemaFlag.option, json: { type: 'boolean' } },
  help: [accountFlag.help, [...dataDirFlag.help], [...databaseUrlFlag.help], [...databaseSchemaFlag.help], ['--json', 'Print the list as JSON, for scripts.']],
  schema: v.object({ account: v.optional(v.string()), 'data-dir': dataDirFlag.schema, 'database-url': databaseUrlFlag.schema, 'database-schema': databaseSchemaFlag.schema, json: v.optional(v.boolean(), false) }),
} satisfies CommandSpec<v.GenericSchema>;

export const tokenRevokeCommand = {
  name: 'token revoke',
  summary: 'Revoke a token: it stops working on its next request, also on a running server.',
  usage: 'marketkit token revoke --account <id or username> --id <token id> [--data-dir <dir> | --database-url <url>] [--database-schema <name>] [--json]',
  options: { ...accountFlag.option, id: { type: 'string' }, ...dataDirFlag.option, ...databaseUrlFlag.option, ...databaseSchemaFlag.option, json: { type: 'boolean' } },
  help: [accountFlag.help, ['--id <token id>', 'The token to revoke (its id, from token list).'], [...dataDirFlag.help], [...databaseUrlFlag.help], [...databaseSchemaFlag.help], ['--json', 'Print the result as JSON.']],
  schema: v.object({
    account: v.optional(v.string()),
    id: v.optional(v.pipe(v.string(), v.regex(uuidPattern, 'id must be a token id (a UUID, see token list)'))),
    'data-dir': dataDirFlag.schema,
    'database-url': databaseUrlFlag.schema, 'database-schema': databaseSchemaFlag.schema,
    json: v.optional(v.boolean(), false),
  }),
} satisfies CommandSpec<v.GenericSchema>;

/** The account named by --account (an id or a username), or a UsageError that says what to do. */
async function accountOf(data: CommandStore, name: string | undefined) {
  if (!name) throw new UsageError('--account is required: an account id or username, such as --account dev-seller.');
  const account = uuidPattern.test(name) ? await data.storage.getAccount(name) : await data.storage.findAccountByUsername(name);
  if (!account) throw new UsageError(`there is no account "${name}" in ${data.where}.`);
  return account;
}

async function runTokenList(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const parsed = parseCommand(tokenListCommand, argv, { 'data-dir': dataDirFlag.default(env) });
  if (parsed.help) return out(helpText(tokenListCommand));
  const data = await openCommandStore(argv, parsed.values, env);
  try {
    const account = await accountOf(data, parsed.values.account);
    const tokens = (await data.storage.listTokens(account.id)).map(tokenView);
    if (parsed.values.json) return out(JSON.stringify({ data: tokens }));
    // Names as the terminal may show them (cli/terminal-text.ts); the JSON above is escaped by the writer.
    const shown = terminalValues(tokens);
    if (tokens.length === 0) return out(`${account.username} has no tokens. Make one with: npx marketkit token create --account ${account.username}`);
    for (const t of shown) {
      out(`${t.id}  ${t.prefix}…  ${t.name}  [${t.scopes.join(' ')}]  last used ${t.last_used_at ?? 'never'}  expires ${t.expires_at ?? 'never'}`);
    }
  } finally {
    await data.close();
  }
}

async function runTokenRevoke(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const parsed = parseCommand(tokenRevokeCommand, argv, { 'data-dir': dataDirFlag.default(env) });
  if (parsed.help) return out(helpText(tokenRevokeCommand));
  if (!parsed.values.id) throw new UsageError('--id is required: the id of the token to revoke (see marketkit token list).');
  const data = await openCommandStore(argv, parsed.values, env);
  try {
    const account = await accountOf(data, parsed.values.account);
    const token = await revokeTokenWithEvent({ storage: data.storage, ids: webCryptoIds }, account.id, parsed.values.id, new Date().toISOString());
    if (!token) throw new UsageError(`${account.username} has no token ${parsed.values.id}.`);
    if (parsed.values.json) return out(JSON.stringify({ success: true, id: token.id, revoked_at: token.revoked_at }));
    out(`Revoked "${terminalText(token.name)}" (${token.prefix}…) at ${token.revoked_at}. It stops working on its next request.`);
  } finally {
    await data.close();
  }
}

const tokenHelp = [
  'Manage developer tokens of a server’s data directory, or of its database with --database-url.',
  '',
  'Usage: marketkit token <command> [options]',
  '',
  'Commands:',
  `  create  ${tokenCreateCommand.summary}`,
  `  list    ${tokenListCommand.summary}`,
  `  revoke  ${tokenRevokeCommand.summary}`,
  '',
  'Run "marketkit token <command> --help" for its options.',
].join('\n');

export async function runToken(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const [sub, ...rest] = argv;
  if (!sub || sub === '--help' || sub === '-h') {
    out(tokenHelp);
    return;
  }
  const commands = { create: runTokenCreate, list: runTokenList, revoke: runTokenRevoke };
  const run = Object.hasOwn(commands, sub) ? commands[sub as keyof typeof commands] : undefined;
  if (!run) throw new UsageError(`unknown command "token ${sub}".\n\n${tokenHelp}`);
  await run(rest, env, out);
}

async function runTokenCreate(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const parsed = parseCommand(tokenCreateCommand, argv, { 'data-dir': dataDirFlag.default(env) });
  if (parsed.help) {
    out(helpText(tokenCreateCommand));
    return;
  }
  const options = parsed.values;
  if (!options.account) throw new UsageError('--account is required: an account id or username, such as --account dev-seller.');
  if (options['all-scopes'] && options.scope) throw new UsageError('give --scope or --all-scopes, not both.');
  const data = await openCommandStore(argv, options, env);
  try {
    const { storage } = data;
    const account = uuidPattern.test(options.account) ? await storage.getAccount(options.account) : await storage.findAccountByUsername(options.account);
    if (!account) throw new UsageError(`there is no account "${options.account}" in ${data.where}.`);
    const days = options['expires-in'];
    // Token records are all it writes: no file is read or stored.
    const marketplace = createMarketplace({ storage, blobs: memoryBlobs() });
    const { token, record } = await marketplace.admin.createToken({
      accountId: account.id,
      name: options.name,
      scopes: options['all-scopes'] ? [...scopes] : (options.scope ?? [...defaultTokenScopes]),
      expiresAt: days === 'never' ? null : new Date(Date.now() + days * 86_400_000),
    });
    if (options.json) {
      out(JSON.stringify({ token, account_id: account.id, username: account.username, ...record }));
      return;
    }
    out(`Token "${record.name}" for ${account.username} (${account.id})`);
    out(`  scopes   ${record.scopes.join(', ')}`);
    out(`  expires  ${record.expires_at ?? 'never'}`);
    out(`  token    ${token}`);
    out('Shown once: keep it. It works at once, also on a server that is running.');
  } finally {
    await data.close();
  }
}
