import { parseArgs } from 'node:util';
import type { TSchema } from '@sinclair/typebox';
import * as v from 'valibot';
import { isApiError } from '../core/errors.js';
import { adminActions, type AdminAction } from '../core/admin/actions.js';
import { runAdminAction } from '../core/admin/admin-operation.js';
import { createMarketplace } from '../core/marketplace.js';
import { createModeration } from '../core/moderation/moderation.js';
import { UsageError } from './args.js';
import { dataDirFlag } from './data-dir.js';
import { databaseSchemaFlag, databaseUrlFlag, openCommandStore } from './database.js';
import { memoryBlobs } from '../adapters/memory/index.js';
import { terminalValues } from './terminal-text.js';

/**
 * `marketkit admin <action>`: the admin surface's actions, run directly on a data directory or a
 * database (no server, no service key: whoever can read the directory, or holds the database's
 * credentials, owns the data anyway). Each action is the
 * same entry of the table that serves /api/admin, with the same validation and the same errors.
 */

const flagOf = (field: string) => field.replace(/_/g, '-');
const paramNames = (act: AdminAction) => [...act.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
const inputSchema = (act: AdminAction) => (act.body ?? act.query) as (TSchema & { properties: Record<string, TSchema> }) | undefined;

function fieldHint(schema: TSchema): string {
  if (schema.type === 'boolean') return 'true|false';
  if (schema.type === 'integer') return 'n';
  if (schema.type === 'array') return 'value';
  if (Array.isArray(schema.anyOf)) {
    const literals = schema.anyOf.map((s: TSchema) => s.const).filter(Boolean);
    // A nullable value (display_name): its non-null kind.
    return literals.length > 0 ? literals.join('|') : fieldHint(schema.anyOf.find((s: TSchema) => s.type !== 'null') ?? {});
  }
  return 'text';
}

function usageOf(act: AdminAction): string {
  const params = paramNames(act).map((name) => `<${name}>`);
  const fields = Object.entries(inputSchema(act)?.properties ?? {}).map(([name, schema]) => {
    const flag = `--${flagOf(name)} <${fieldHint(schema)}>${schema.type === 'array' ? '...' : ''}`;
    return (inputSchema(act)?.required ?? []).includes(name) ? flag : `[${flag}]`;
  });
  return ['marketkit admin', act.name, ...params, ...fields, '[--data-dir <dir> | --database-url <url>] [--database-schema <name>] [--json]'].join(' ');
}

function actionHelp(act: AdminAction): string {
  const lines = [`${act.summary}.`, '', `Usage: ${usageOf(act)}`, ''];
  const params = Object.entries(act.params ?? {});
  if (params.length) lines.push('Arguments:', ...params.map(([name, text]) => `  <${name}>  ${text}`), '');
  const rows: [string, string][] = Object.entries(inputSchema(act)?.properties ?? {}).map(([name, schema]) => [
    `--${flagOf(name)} <${fieldHint(schema)}>`,
    `${schema.description ?? schema.anyOf?.find((s: TSchema) => s.description)?.description ?? name.replace(/_/g, ' ')}${schema.type === 'array' ? ' Repeat for more.' : ''}`,
  ]);
  rows.push([...dataDirFlag.help], [...databaseUrlFlag.help], [...databaseSchemaFlag.help], ['--json', 'Print the result as JSON, for scripts.'], ['-h, --help', 'Show this help.']);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  lines.push('Options:', ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`));
  lines.push('', `Over HTTP: ${act.method} /api/admin${act.path} with Authorization: Bearer <service key>.`);
  return lines.join('\n');
}

export function adminHelp(): string {
  const width = Math.max(...adminActions.map((act) => act.name.length));
  return [
    'Moderate listings and manage accounts, categories and tokens of a server’s data directory, or of',
    'its PostgreSQL database with --database-url (env MARKETKIT_DATABASE_URL, then DATABASE_URL).',
    'The same actions as the admin surface (/api/admin), run on the data directly; running servers see',
    'the changes at once.',
    '',
    'Usage: marketkit admin <action> [arguments] [options]',
    '',
    'Actions:',
    ...adminActions.map((act) => `  ${act.name.padEnd(width)}  ${act.summary}`),
    '',
    'Run "marketkit admin <action> --help" for its arguments and options.',
  ].join('\n');
}

/** Flag values as the input schema's types: integers, booleans and lists where it says so. */
function inputFromFlags(act: AdminAction, values: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(inputSchema(act)?.properties ?? {})) {
    const raw = values[flagOf(name)];
    if (raw === undefined) continue;
    if (schema.type === 'integer' && typeof raw === 'string' && /^-?\d{1,15}$/.test(raw)) input[name] = Number(raw);
    else if (schema.type === 'boolean' && (raw === 'true' || raw === 'false')) input[name] = raw === 'true';
    else input[name] = raw;
  }
  return input;
}

const Common = v.object({ 'data-dir': dataDirFlag.schema, 'database-url': databaseUrlFlag.schema, 'database-schema': databaseSchemaFlag.schema, json: v.optional(v.boolean(), false) });

/** Human output: listings as one line each, everything else as indented JSON. */
function render(result: unknown, out: (line: string) => void): void {
  const listing = (a: Record<string, unknown>) => `${a.id}  ${String(a.status).padEnd(17)}  ${a.title}`;
  const value = result as Record<string, unknown>;
  if (Array.isArray(value.items)) {
    out(`${value.total} waiting for review${value.total ? ' (oldest first):' : '.'}`);
    for (const a of value.items as Record<string, unknown>[]) out(`  ${listing(a)}`);
    return;
  }
  if (Array.isArray(value.released)) {
    out(`Released ${value.released.length} scheduled listing${value.released.length === 1 ? '' : 's'} to review.`);
    for (const a of value.released as Record<string, unknown>[]) out(`  ${listing(a)}`);
    return;
  }
  if (typeof value.status === 'string' && typeof value.title === 'string') return out(`${listing(value)}`);
  if (Array.isArray(value.data) && typeof value.total === 'number' && (value.data as Record<string, unknown>[]).every((a) => typeof a.username === 'string')) {
    const accounts = value.data as Record<string, unknown>[];
    out(`${value.total} account${value.total === 1 ? '' : 's'}${accounts.length < (value.total as number) ? ` (${accounts.length} from ${value.offset}; --limit and --offset for more)` : ''}${accounts.length ? ':' : '.'}`);
    for (const a of accounts) out(`  ${accountLine(a)}`);
    return;
  }
  if (typeof value.username === 'string' && typeof value.seller_status === 'string') return out(accountLine(value));
  if (Array.isArray(value.endpoints)) return renderWebhooks(value as unknown as WebhooksResult, out);
  out(JSON.stringify(result, null, 2));
}

/** One account as a line: its name, id and the state a moderator looks at. */
function accountLine(a: Record<string, unknown>): string {
  const state = [
    `seller ${a.seller_status}`,
    a.payouts_connected ? 'payouts connected' : 'no payouts',
    `plan ${a.subscription_tier}`,
    ...(a.is_restricted ? ['RESTRICTED'] : []),
    ...(a.is_suspended ? ['SUSPENDED'] : []),
    `${a.storage_bytes} bytes stored`,
  ];
  return `${String(a.username).padEnd(20)}  ${a.id}  ${state.join(', ')}`;
}

interface WebhooksResult {
  endpoints: { id: string; url: string; enabled: boolean; disabled_reason: string | null; event_types: string[] }[];
  failing: { id: string; endpoint_id: string; event_type: string; status: string; attempts: { status_code: number | null; error: string | null }[]; next_attempt_at: string | null }[];
  failing_total: number;
}

/** The webhooks action: one line per endpoint, then one per failing delivery with its last answer. */
function renderWebhooks(result: WebhooksResult, out: (line: string) => void): void {
  out(`${result.endpoints.length} webhook endpoint${result.endpoints.length === 1 ? '' : 's'}${result.endpoints.length ? ':' : '.'}`);
  for (const e of result.endpoints) out(`  ${e.id}  ${e.enabled ? 'enabled ' : 'disabled'}  ${e.url}  [${e.event_types.join(' ')}]${e.disabled_reason ? `  (${e.disabled_reason})` : ''}`);
  out(`${result.failing_total} failing deliver${result.failing_total === 1 ? 'y' : 'ies'}${result.failing_total ? ' (newest first):' : '.'}`);
  for (const d of result.failing) {
    const last = d.attempts.at(-1);
    const answer = last ? (last.status_code !== null ? `HTTP ${last.status_code}` : last.error) : 'no attempt';
    out(`  ${d.id}  ${d.status.padEnd(8)}  ${d.event_type}  ${d.attempts.length} attempt${d.attempts.length === 1 ? '' : 's'}, last: ${answer}${d.next_attempt_at ? `, next at ${d.next_attempt_at}` : ''}  (endpoint ${d.endpoint_id})`);
  }
}

export async function runAdmin(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') return out(adminHelp());
  const act = adminActions.find((a) => a.name === name);
  if (!act) throw new UsageError(`unknown action "admin ${name}".\n\n${adminHelp()}`);
  const options: NonNullable<Parameters<typeof parseArgs>[0]>['options'] = {
    ...dataDirFlag.option,
    ...databaseUrlFlag.option,
    ...databaseSchemaFlag.option,
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  };
  for (const [field, schema] of Object.entries(inputSchema(act)?.properties ?? {})) {
    options[flagOf(field)] = { type: 'string', ...(schema.type === 'array' ? { multiple: true } : {}) };
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nRun "marketkit admin ${name} --help" for its options.`);
  }
  if (parsed.values.help) return out(actionHelp(act));
  const names = paramNames(act);
  if (parsed.positionals.length !== names.length) {
    throw new UsageError(`admin ${name} takes ${names.length ? names.map((n) => `<${n}>`).join(' ') : 'no arguments'}.\nUsage: ${usageOf(act)}`);
  }
  const common = v.safeParse(Common, { 'data-dir': parsed.values['data-dir'] ?? dataDirFlag.default(env), 'database-url': parsed.values['database-url'], 'database-schema': parsed.values['database-schema'], json: parsed.values.json });
  if (!common.success) throw new UsageError(common.issues.map((issue) => issue.message).join('; '));
  const data = await openCommandStore(rest, common.output, env);
  try {
    // The admin actions touch records only, never files.
    const marketplace = createMarketplace({ storage: data.storage, blobs: memoryBlobs() });
    const context = { ports: marketplace.ports, settings: marketplace.settings, admin: marketplace.admin, moderation: createModeration(marketplace.ports), ...(env.MARKETKIT_SITE_URL ? { siteUrl: env.MARKETKIT_SITE_URL } : {}) };
    const params = Object.fromEntries(names.map((param, i) => [param, parsed.positionals[i]!]));
    let result: unknown;
    try {
      result = await runAdminAction(context, act, params, inputFromFlags(act, parsed.values));
    } catch (error) {
      // The same refusal the HTTP surface gives, said on the command line: the field as its flag.
      if (isApiError(error)) {
        const message = error.message.replace(/^(\w+)(?=[ .[])/, (field) => (field in (inputSchema(act)?.properties ?? {}) ? `--${flagOf(field)}` : field));
        if (error.code === 'INVALID_INPUT') throw new UsageError(`${message}\nRun "marketkit admin ${name} --help" for its options.`);
        throw new Error(`${message} (${error.code})`);
      }
      throw error;
    }
    if (common.output.json) return out(JSON.stringify(result));
    // Every value a client wrote (titles, names, URLs, errors) escaped for the terminal before it is laid out.
    render(terminalValues(result), out);
    if (act.name === 'create-account') out(`A token for it: npx marketkit token create --account ${(result as { username: string }).username} --all-scopes`);
  } finally {
    await data.close();
  }
}
