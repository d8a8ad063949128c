import * as v from 'valibot';
import { defaultTokenScopes, scopes } from '../core/domain/scopes.js';
import { createMarketplace } from '../core/marketplace.js';
import { helpText, parseCommand, UsageError, type CommandSpec } from './args.js';
import { dataDirFlag, openDataDir } from './data-dir.js';

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const tokenCreateCommand = {
  name: 'token create',
  summary: 'Create a developer token for an account of the server’s data directory; it is shown once.',
  usage: 'marketkit token create --account <id or username> [--name <name>] [--scope <scope>]... [--all-scopes] [--expires-in <days|never>] [--data-dir <dir>] [--json]',
  options: {
    account: { type: 'string' },
    name: { type: 'string' },
    scope: { type: 'string', multiple: true },
    'all-scopes': { type: 'boolean' },
    'expires-in': { type: 'string' },
    ...dataDirFlag.option,
    json: { type: 'boolean' },
  },
  help: [
    ['--account <id|username>', 'The account the token acts for (the dev seller is dev-seller).'],
    ['--name <name>', 'A name to tell the token apart in GET /api/v1/tokens (default "cli").'],
    ['--scope <scope>', `A scope to grant; repeat for more. One of ${scopes.join(', ')}. Default: ${defaultTokenScopes.join(', ')}.`],
    ['--all-scopes', 'Grant all six scopes.'],
    ['--expires-in <days|never>', 'Days until the token stops working, or never (default never).'],
    [...dataDirFlag.help],
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
    json: v.optional(v.boolean(), false),
  }),
} satisfies CommandSpec<v.GenericSchema>;

const tokenHelp = [
  'Manage developer tokens of a server’s data directory.',
  '',
  'Usage: marketkit token <command> [options]',
  '',
  'Commands:',
  `  create  ${tokenCreateCommand.summary}`,
  '',
  'Run "marketkit token create --help" for its options.',
].join('\n');

export async function runToken(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const [sub, ...rest] = argv;
  if (!sub || sub === '--help' || sub === '-h') {
    out(tokenHelp);
    return;
  }
  if (sub !== 'create') throw new UsageError(`unknown command "token ${sub}".\n\n${tokenHelp}`);
  await runTokenCreate(rest, env, out);
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
  const data = await openDataDir(options['data-dir'], { create: false });
  try {
    const { storage } = data;
    const account = uuidPattern.test(options.account) ? await storage.getAccount(options.account) : await storage.findAccountByUsername(options.account);
    if (!account) throw new UsageError(`there is no account "${options.account}" in ${data.database}.`);
    const days = options['expires-in'];
    const marketplace = createMarketplace({ storage, blobs: data.blobs });
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
