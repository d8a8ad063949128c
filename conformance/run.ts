/**
 * runConformance: the whole black-box suite against one base URL, as a value. It uses no test
 * runner: node:test, the CLI or anything else reads the structured result.
 */
import { requirements, type Requirement } from './requirements.js';
import { HttpClient } from './http/client.js';
import { fixtureDescriptions, fixtureNames, NotCertified, RequirementFailure, type Check, type CheckContext, type Evidence, type FixtureName, type Fixtures } from './http/check.js';
import { allChecks } from './http/checks.js';
import { runModel } from './http/model-run.js';

/** Bumped when a check is added, removed or changed in what it accepts. */
export const suiteVersion = '1.1.0';
/** The wire contract the suite checks (the REST API version and the contract it decides). */
export const contractVersion = '1.0.0';

export interface ConformanceOptions {
  /** The site root: REST under `${baseUrl}/api/v1`, MCP at `${baseUrl}/api/mcp`. */
  baseUrl: string;
  /** Fixture tokens; `seller` is required. */
  fixtures: Fixtures;
  /** Model-based runs (fast-check). 0 leaves MODEL-SEQUENCES not certified. Default 50. */
  runs?: number;
  /** The fast-check seed; random (and reported) when not given. */
  seed?: number;
  /** How long the expiry check may wait for a signed URL to expire, in seconds. Default 5. */
  expiryWaitSeconds?: number;
  /** A published listing of the seller, for LISTING_IS_LIVE. */
  publishedAssetId?: string;
  /** The most requests the rate-limit check may send (it spends the read-only token's budget); without it that check is not certified. */
  rateLimitProbe?: number;
  /** The window of the server's read limit, in seconds, for the rate-limit check's boundary (default 60). */
  rateLimitWindowSeconds?: number;
  /** Only the checks whose id starts with one of these (for a quick run). */
  only?: string[];
  /** Called as the suite progresses. */
  onProgress?: (event: ProgressEvent) => void;
  fetch?: typeof fetch;
}

export type ProgressEvent =
  | { kind: 'check-start'; check: string; title: string }
  | { kind: 'check-end'; check: string; outcome: CheckOutcome['outcome']; ms: number; detail?: string }
  | { kind: 'model-run'; run: number; runs: number };

export interface CheckOutcome {
  id: string;
  title: string;
  outcome: 'passed' | 'failed' | 'not certified';
  ms: number;
  failure?: { requirement: string; evidence: Evidence; replay?: string[]; also?: string[] };
  reason?: string;
}

export type RequirementStatus = 'passed' | 'failed' | 'not certified' | 'not checked';

export interface RequirementResult {
  id: string;
  source: string;
  rule: string;
  status: RequirementStatus;
  /** The checks that cover it. */
  checks: string[];
  /** For failed: what was sent, what was expected, what came back. */
  evidence?: Evidence & { check: string; replay?: string[] };
  /** For not certified and not checked: why. */
  reason?: string;
}

export interface ConformanceResult {
  suiteVersion: string;
  contractVersion: string;
  baseUrl: string;
  seed: number;
  runs: number;
  startedAt: string;
  durationMs: number;
  /** The fixtures given (names only, never the tokens). */
  fixtures: FixtureName[];
  requirements: RequirementResult[];
  checks: CheckOutcome[];
  summary: { passed: number; failed: number; notCertified: number; notChecked: number };
  /** True when no certified requirement failed (and at least one passed). */
  ok: boolean;
  rateLimited: { times: number; waitedMs: number };
}

const modelCheck: Check = {
  id: 'model.sequences',
  title: 'model-based: random sequences of listing operations against the reference model',
  requirements: ['MODEL-SEQUENCES'],
  async run() {
    throw new Error('run by runConformance itself');
  },
};

/** Every check with the requirements it covers (for the catalogue and docs). */
export function checkCatalogue(): Check[] {
  return [...allChecks, modelCheck];
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceResult> {
  if (!options.fixtures?.seller) throw new Error('marketkit conformance: fixtures.seller (the --token of an approved seller with all six scopes) is required');
  const started = Date.now();
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const runs = options.runs ?? 50;
  const tokenNames = new Map<string, string>();
  for (const name of fixtureNames) if (options.fixtures[name]) tokenNames.set(options.fixtures[name]!, name);
  const client = new HttpClient({ baseUrl: options.baseUrl, tokenNames, ...(options.fetch ? { fetch: options.fetch } : {}) });
  const ctx = checkContext(options, client);
  const progress = options.onProgress ?? (() => {});
  // Not a requirement: without a server to talk to there is nothing to certify.
  await client.get('/health').catch((error: unknown) => {
    throw new Error(`marketkit conformance: cannot reach ${client.api}/health (${error instanceof Error ? (error.cause as Error | undefined)?.message ?? error.message : String(error)})`);
  });
  const selected = (check: Check) => !options.only || options.only.some((prefix) => check.id.startsWith(prefix));

  const outcomes: CheckOutcome[] = [];
  for (const check of allChecks.filter(selected)) {
    progress({ kind: 'check-start', check: check.id, title: check.title });
    const outcome = await runCheck(ctx, client, check, options);
    outcomes.push(outcome);
    progress(checkEnd(check, outcome));
  }
  if (selected(modelCheck)) {
    progress({ kind: 'check-start', check: modelCheck.id, title: modelCheck.title });
    const outcome = await runModelCheck(ctx, runs, seed, progress);
    outcomes.push(outcome);
    progress(checkEnd(modelCheck, outcome));
  }

  const results = requirements.map((requirement) => requirementResult(requirement, outcomes, checkCatalogue()));
  const summary = {
    passed: results.filter((r) => r.status === 'passed').length,
    failed: results.filter((r) => r.status === 'failed').length,
    notCertified: results.filter((r) => r.status === 'not certified').length,
    notChecked: results.filter((r) => r.status === 'not checked').length,
  };
  return {
    suiteVersion,
    contractVersion,
    baseUrl: client.baseUrl,
    seed,
    runs,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    fixtures: fixtureNames.filter((name) => options.fixtures[name]),
    requirements: results,
    checks: outcomes,
    summary,
    ok: summary.failed === 0 && summary.passed > 0,
    rateLimited: { ...client.rateLimited },
  };
}

/** What every check is given: the client, the fixtures, fresh slugs for this run, the settings. */
function checkContext(options: ConformanceOptions, client: HttpClient): CheckContext {
  const runTag = `ck-${Date.now().toString(36)}-${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
  let slugCounter = 0;
  return {
    client,
    fixtures: options.fixtures,
    slug: (label = 'a') => `${runTag}-${label}-${++slugCounter}`,
    settings: {
      expiryWaitSeconds: options.expiryWaitSeconds ?? 5,
      ...(options.publishedAssetId ? { publishedAssetId: options.publishedAssetId } : {}),
      ...(options.rateLimitProbe ? { rateLimitProbe: options.rateLimitProbe } : {}),
      ...(options.rateLimitWindowSeconds ? { rateLimitWindowSeconds: options.rateLimitWindowSeconds } : {}),
    },
  };
}

const checkEnd = (check: Check, outcome: CheckOutcome) =>
  ({ kind: 'check-end', check: check.id, outcome: outcome.outcome, ms: outcome.ms, ...(outcome.failure ? { detail: outcome.failure.requirement } : outcome.reason ? { detail: outcome.reason } : {}) }) as const;

/** One check: not certified when a fixture it needs is missing (or it says it cannot run), else its outcome. */
async function runCheck(ctx: CheckContext, client: HttpClient, check: Check, options: ConformanceOptions): Promise<CheckOutcome> {
  const t0 = Date.now();
  const missing = (check.needs ?? []).filter((name) => !options.fixtures[name]);
  const unavailable = missing.length > 0 ? `needs ${missing.map((name) => fixtureDescriptions[name].flag).join(', ')}` : check.unavailable?.(ctx) ?? null;
  if (unavailable) return { id: check.id, title: check.title, outcome: 'not certified', ms: 0, reason: unavailable };
  client.take();
  try {
    await check.run(ctx);
    return { id: check.id, title: check.title, outcome: 'passed', ms: Date.now() - t0 };
  } catch (error) {
    return outcomeOfError(check, error, Date.now() - t0, client.take());
  }
}

/** The model-based runs: random sequences of listing operations against the reference model. */
async function runModelCheck(ctx: CheckContext, runs: number, seed: number, progress: NonNullable<ConformanceOptions['onProgress']>): Promise<CheckOutcome> {
  const t0 = Date.now();
  if (runs <= 0) return { id: modelCheck.id, title: modelCheck.title, outcome: 'not certified', ms: 0, reason: 'model runs turned off (--runs 0)' };
  try {
    await runModel(ctx, { runs, seed, onRun: (run) => progress({ kind: 'model-run', run, runs }) });
    return { id: modelCheck.id, title: modelCheck.title, outcome: 'passed', ms: Date.now() - t0 };
  } catch (error) {
    const outcome = outcomeOfError(modelCheck, error, Date.now() - t0, []);
    // The specific rule is named; the model requirement fails with it.
    if (outcome.failure) outcome.failure.also = ['MODEL-SEQUENCES'];
    return outcome;
  }
}

function outcomeOfError(check: Check, error: unknown, ms: number, exchanges: import('./http/client.js').Exchange[]): CheckOutcome {
  if (error instanceof NotCertified) return { id: check.id, title: check.title, outcome: 'not certified', ms, reason: error.reason };
  if (error instanceof RequirementFailure) {
    return { id: check.id, title: check.title, outcome: 'failed', ms, failure: { requirement: error.requirement, evidence: error.evidence, ...(error.replay ? { replay: error.replay } : {}) } };
  }
  // The server answered something the check could not even read (a network error, a body of the wrong shape):
  // that breaks the first requirement the check covers, with the last exchange as evidence.
  const last = exchanges.at(-1);
  return {
    id: check.id,
    title: check.title,
    outcome: 'failed',
    ms,
    failure: {
      requirement: check.requirements[0]!,
      evidence: { expected: `an answer the check can read (${error instanceof Error ? error.message : String(error)})`, ...(last ? { request: last.request, got: { status: last.status, body: last.body } } : {}) },
    },
  };
}

function requirementResult(requirement: Requirement, outcomes: CheckOutcome[], catalogue: Check[]): RequirementResult {
  const checks = catalogue.filter((check) => check.requirements.includes(requirement.id)).map((check) => check.id);
  const base = { id: requirement.id, source: requirement.source, rule: requirement.rule, checks };
  const failure = outcomes.find((outcome) => outcome.failure?.requirement === requirement.id || outcome.failure?.also?.includes(requirement.id));
  if (failure?.failure) return { ...base, status: 'failed', evidence: { ...failure.failure.evidence, check: failure.id, ...(failure.failure.replay ? { replay: failure.failure.replay } : {}) } };
  if (checks.length === 0) return { ...base, status: 'not checked', reason: requirement.notChecked ?? 'no check covers it yet' };
  const covering = checks.map((id) => outcomes.find((outcome) => outcome.id === id));
  const notRun = covering.find((outcome) => !outcome);
  if (notRun !== undefined || covering.some((outcome) => !outcome)) return { ...base, status: 'not certified', reason: 'its checks were not selected in this run' };
  const uncertified = covering.find((outcome) => outcome!.outcome === 'not certified');
  if (uncertified) return { ...base, status: 'not certified', reason: `${uncertified.id}: ${uncertified.reason}` };
  const stopped = covering.find((outcome) => outcome!.outcome === 'failed');
  if (stopped) return { ...base, status: 'not certified', reason: `${stopped.id} stopped at an earlier failure (${stopped.failure?.requirement})` };
  return { ...base, status: 'passed' };
}
