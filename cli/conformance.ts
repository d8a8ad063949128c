import { writeFile } from 'node:fs/promises';
import * as v from 'valibot';
import { runConformance, type ProgressEvent } from '../conformance/run.js';
import { renderJunit, renderSummary } from '../conformance/report.js';
import { fixtureDescriptions, fixtureNames, type Fixtures } from '../conformance/http/check.js';
import { helpText, parseCommand, UsageError, type CommandSpec } from './args.js';

const tokenFlags = Object.fromEntries(fixtureNames.map((name) => [fixtureDescriptions[name].flag.slice(2), { type: 'string' as const }]));
const Token = v.optional(v.pipe(v.string(), v.regex(/^\S+$/, 'a token must not contain spaces')));
const Integer = (name: string, min: number) =>
  v.pipe(v.union([v.string(), v.number()]), v.transform(Number), v.integer(`${name} must be an integer`), v.minValue(min, `${name} must be at least ${min}`));

export const conformanceCommand = {
  name: 'conformance',
  summary: 'Certify a server (ours or yours) against the wire contract: REST, MCP and model-based tests.',
  usage: 'marketkit conformance --base-url http://127.0.0.1:8787 --token smcp_... [--token-second-seller ...] [--runs 50] [--seed S] [--report out.json] [--junit out.xml]',
  options: {
    'base-url': { type: 'string' },
    ...tokenFlags,
    'published-asset': { type: 'string' },
    'rate-limit-probe': { type: 'string' },
    'rate-limit-window': { type: 'string' },
    runs: { type: 'string' },
    seed: { type: 'string' },
    'expiry-wait': { type: 'string' },
    only: { type: 'string' },
    report: { type: 'string' },
    junit: { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
  },
  help: [
    ['--base-url <url>', 'The site root of the server: REST under <url>/api/v1, MCP at <url>/api/mcp (required).'],
    ...fixtureNames.map((name): [string, string] => [`${fixtureDescriptions[name].flag} <token>`, `${name === 'seller' ? '(required) ' : ''}${fixtureDescriptions[name].what}.`]),
    ['--published-asset <id>', 'A published listing of the --token seller (for LISTING_IS_LIVE).'],
    ['--rate-limit-probe <n>', 'Let the rate-limit check send up to n requests with the --token-read-only token to meet a 429 (n well above the server’s read limit: twice it is safe).'],
    ['--rate-limit-window <s>', 'The window of the server’s read limit, in seconds, for the check that no window boundary gives the budget back whole (default 60).'],
    ['--runs <n>', 'Model-based runs (fast-check); 0 turns them off. Default 50.'],
    ['--seed <n>', 'The fast-check seed, to replay a run (default: random, printed and reported).'],
    ['--expiry-wait <s>', 'Longest wait for an upload URL to expire, in seconds (default 5).'],
    ['--only <prefixes>', 'Only the checks whose id starts with one of these (comma-separated), e.g. rest.assets,mcp.'],
    ['--report <file>', 'Write the JSON report (suite and contract versions, seed, every requirement’s result).'],
    ['--junit <file>', 'Write JUnit XML: one test case per requirement.'],
    ['-q, --quiet', 'No progress lines; only the summary.'],
  ],
  schema: v.object({
    'base-url': v.pipe(
      v.optional(v.string()),
      v.check((url) => url === undefined || /^https?:\/\/[^\s/]+/.test(url), 'base-url must be an absolute http(s) URL'),
    ),
    token: v.pipe(
      v.optional(v.string()),
      v.check((token) => token === undefined || /^\S+$/.test(token), 'a token must not contain spaces'),
    ),
    ...Object.fromEntries(fixtureNames.filter((name) => name !== 'seller').map((name) => [fixtureDescriptions[name].flag.slice(2), Token])),
    'published-asset': v.optional(v.pipe(v.string(), v.uuid('published-asset must be a listing id (a UUID)'))),
    'rate-limit-probe': v.optional(Integer('rate-limit-probe', 1)),
    'rate-limit-window': v.optional(Integer('rate-limit-window', 1)),
    runs: v.optional(Integer('runs', 0), 50),
    seed: v.optional(Integer('seed', 0)),
    'expiry-wait': v.optional(Integer('expiry-wait', 0), 5),
    only: v.optional(v.string()),
    report: v.optional(v.string()),
    junit: v.optional(v.string()),
    quiet: v.optional(v.boolean(), false),
  }),
} satisfies CommandSpec<v.GenericSchema>;

/** Runs the suite; resolves to the exit code (0 only when every certified requirement passed). */
export async function runConformanceCommand(argv: string[], out: (line: string) => void): Promise<number> {
  const parsed = parseCommand(conformanceCommand, argv);
  if (parsed.help) {
    out(helpText(conformanceCommand));
    return 0;
  }
  const options = parsed.values as Record<string, any>;
  // Checked here: valibot skips the pipe of a missing optional key.
  if (!options['base-url']) throw new UsageError('base-url is required (the server’s site root, e.g. http://127.0.0.1:8787)\nRun "marketkit conformance --help" for the options.');
  if (!options.token) throw new UsageError('token is required: a developer token (smcp_...) of an approved seller with all six scopes\nRun "marketkit conformance --help" for the options.');
  const fixtures = { seller: options.token } as Fixtures;
  for (const name of fixtureNames) {
    const value = options[fixtureDescriptions[name].flag.slice(2)];
    if (name !== 'seller' && value) (fixtures as Record<string, string>)[name] = value;
  }
  const progress = (event: ProgressEvent) => {
    if (options.quiet) return;
    if (event.kind === 'check-end') {
      const mark = event.outcome === 'passed' ? 'ok  ' : event.outcome === 'failed' ? 'FAIL' : 'n/c ';
      out(`${mark} ${event.check} (${event.ms} ms)${event.detail ? `  ${event.outcome === 'failed' ? 'broke ' : ''}${event.detail}` : ''}`);
    } else if (event.kind === 'model-run' && (event.run === 1 || event.run % 10 === 0)) {
      out(`     model run ${event.run}/${event.runs}`);
    }
  };
  out(`MarketKit conformance against ${options['base-url']}`);
  const result = await runConformance({
    baseUrl: options['base-url'],
    fixtures,
    runs: options.runs,
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    expiryWaitSeconds: options['expiry-wait'],
    ...(options['published-asset'] ? { publishedAssetId: options['published-asset'] } : {}),
    ...(options['rate-limit-probe'] ? { rateLimitProbe: options['rate-limit-probe'] } : {}),
    ...(options['rate-limit-window'] ? { rateLimitWindowSeconds: options['rate-limit-window'] } : {}),
    ...(options.only ? { only: String(options.only).split(',').map((s) => s.trim()).filter(Boolean) } : {}),
    onProgress: progress,
  }).catch((error: unknown) => {
    // The library names itself; the command's own prefix is added by main.
    throw error instanceof Error ? new Error(error.message.replace(/^marketkit conformance: /, '')) : error;
  });
  out('');
  out(renderSummary(result));
  if (options.report) await writeFile(options.report, `${JSON.stringify(result, null, 2)}\n`);
  if (options.junit) await writeFile(options.junit, renderJunit(result));
  return result.ok ? 0 : 1;
}
