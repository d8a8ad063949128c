import { operationAt } from '../core/http/routes.js';
import { ApiError, ConfigurationError, errorCatalogue, type ErrorCode } from '../core/errors.js';
import { blobRoutePrefix } from '../core/operations/blob-urls.js';
import { mulberry32 } from './mulberry32.js';

/**
 * Where a fault applies:
 * - `'POST /assets/:id/submit'`: a method (or `*`) and a path pattern, relative to `/api/v1` unless
 *   it starts with `/api/` (`'POST /api/mcp'`); `:name` matches one segment, a trailing `*` the rest.
 * - `'upload'`, `'upload:file'`, `'upload:image'`: the PUTs to signed upload URLs.
 * - `{ operation: 'confirmAssetFile' }`: the REST route of that operation (the OpenAPI operationId).
 * - `{ tool: 'submit_asset' }`: a POST to the MCP endpoint that calls that tool (in a batch too).
 */
export type FaultTarget = string | { operation: string } | { tool: string };

/** When a rule fires, among the calls its target matches. */
export interface FaultSchedule {
  /** How many times it fires at most (default 1; with `probability`, no limit). */
  times?: number;
  /** Calls let through before the rule starts to fire (default 0). */
  skip?: number;
  /** Fire on each matching call with this probability, drawn from `seed`: the same seed, the same calls fail. */
  probability?: number;
  /** Seed of the rule's random draws (default 1). */
  seed?: number;
}

export type FaultKind =
  /** A fixed error response with a code of the catalogue (its status unless `status` is given). */
  | { kind: 'error'; code: ErrorCode; status?: number; message?: string }
  /** 429 RATE_LIMITED with Retry-After (seconds) and the RateLimit-* headers. */
  | { kind: 'rateLimit'; retryAfter?: number }
  /** 503 SERVICE_UNAVAILABLE with Retry-After (seconds). */
  | { kind: 'unavailable'; retryAfter?: number }
  /** The connection closes with no response: before the marketplace sees the request, or after it did the work. */
  | { kind: 'drop'; when?: 'before' | 'after' }
  /** The response comes `ms` real milliseconds late; it adds to any other fault. */
  | { kind: 'latency'; ms: number }
  /** A signed-URL PUT whose connection breaks after `fraction` of the body: nothing is stored. */
  | { kind: 'partialUpload'; fraction?: number };

export type FaultRule = FaultKind & FaultSchedule & { target: FaultTarget };

export interface FaultHandle {
  readonly id: number;
  /** How many calls the rule failed (or delayed) so far. */
  readonly fired: number;
  /** How many calls its target matched so far. */
  readonly seen: number;
  remove(): void;
}

export interface FaultStatus {
  id: number;
  kind: FaultKind['kind'];
  target: FaultTarget;
  fired: number;
  seen: number;
  /** Fires left; null for no limit. */
  remaining: number | null;
}

/** The faults that apply to one call: any latency, then at most one other fault. */
export interface FaultDecision {
  latencyMs: number;
  fault: Exclude<FaultKind, { kind: 'latency' }> | null;
}

/** A seeded generator (mulberry32), good enough to choose which calls fail, and the same on every run. */
const seededRandom = (seed: number): (() => number) => mulberry32(seed).random;

const where = 'marketkit/testing faults';
/** The hosted MCP endpoint, where `{ tool }` targets apply. */
export const mcpPath = '/api/mcp';

type Matcher = (method: string, path: string, tools: () => readonly string[]) => boolean;

function compileTarget(target: FaultTarget): Matcher {
  if (typeof target === 'object' && target !== null && 'tool' in target && typeof target.tool === 'string') {
    const name = target.tool;
    return (method, path, tools) => method === 'POST' && path === mcpPath && tools().includes(name);
  }
  if (typeof target === 'object' && target !== null && 'operation' in target && typeof target.operation === 'string') {
    const name = target.operation;
    return (method, path) => {
      return operationAt(method, path)?.name === name;
    };
  }
  if (typeof target !== 'string') throw new ConfigurationError(where, 'target must be a string such as "POST /assets", { operation: "createAsset" } or { tool: "submit_asset" }');
  if (target === 'upload' || target === 'upload:file' || target === 'upload:image') {
    const folder = target === 'upload' ? '' : target === 'upload:file' ? '/files/' : '/images/';
    return (method, path) => method === 'PUT' && path.startsWith(blobRoutePrefix) && decodeURIComponent(path).includes(folder);
  }
  const parts = /^([A-Za-z]+|\*)\s+(\/\S*)$/.exec(target.trim());
  if (!parts) throw new ConfigurationError(where, `target "${target}" must be "METHOD /path" (such as "POST /assets/:id/submit"), "upload", or { operation }`);
  const wantMethod = parts[1]!.toUpperCase();
  const full = parts[2]!.startsWith('/api/') || parts[2]!.startsWith('/__') ? parts[2]! : `/api/v1${parts[2] === '/' ? '' : parts[2]}`;
  const source = full
    .split('/')
    .map((segment) => (segment === '*' ? '.*' : segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  const pattern = new RegExp(`^${source}/?$`);
  return (method, path) => (wantMethod === '*' || wantMethod === method) && pattern.test(path);
}

const scheduleKeys = ['target', 'kind', 'times', 'skip', 'probability', 'seed'];
const kindKeys: Record<FaultKind['kind'], string[]> = {
  error: ['code', 'status', 'message'],
  rateLimit: ['retryAfter'],
  unavailable: ['retryAfter'],
  drop: ['when'],
  latency: ['ms'],
  partialUpload: ['fraction'],
};

function checkRule(rule: FaultRule): void {
  const known = kindKeys[rule.kind];
  if (known) {
    // A misspelt option (retry_after) would otherwise be ignored in silence.
    const unknown = Object.keys(rule).find((key) => !scheduleKeys.includes(key) && !known.includes(key));
    if (unknown) throw new ConfigurationError(where, `${unknown} is not an option of a ${rule.kind} fault (its options: ${[...known, ...scheduleKeys.slice(2)].join(', ')})`);
  }
  const count = (name: string, value: unknown, min: number) => {
    if (value !== undefined && (typeof value !== 'number' || !(value >= min) || (Number.isFinite(value) && !Number.isInteger(value)))) {
      throw new ConfigurationError(where, `${name} must be an integer >= ${min}`);
    }
  };
  count('times', rule.times, 1);
  count('skip', rule.skip, 0);
  count('seed', rule.seed, 0);
  if (rule.probability !== undefined && !(typeof rule.probability === 'number' && rule.probability >= 0 && rule.probability <= 1)) {
    throw new ConfigurationError(where, 'probability must be a number from 0 to 1');
  }
  switch (rule.kind) {
    case 'error':
      if (!(rule.code in errorCatalogue)) throw new ConfigurationError(where, `code must be one of the catalogue: ${Object.keys(errorCatalogue).join(', ')}`);
      if (rule.status !== undefined && !(Number.isInteger(rule.status) && rule.status >= 400 && rule.status <= 599)) {
        throw new ConfigurationError(where, 'status must be an HTTP error status from 400 to 599');
      }
      return;
    case 'rateLimit':
    case 'unavailable':
      count('retryAfter', rule.retryAfter, 0);
      return;
    case 'drop':
      if (rule.when !== undefined && rule.when !== 'before' && rule.when !== 'after') throw new ConfigurationError(where, 'when must be "before" or "after"');
      return;
    case 'latency':
      count('ms', rule.ms, 0);
      if (rule.ms === undefined) throw new ConfigurationError(where, 'latency needs ms');
      return;
    case 'partialUpload':
      if (rule.fraction !== undefined && !(rule.fraction >= 0 && rule.fraction < 1)) throw new ConfigurationError(where, 'fraction must be at least 0 and below 1');
      return;
    default:
      throw new ConfigurationError(where, `kind must be error, rateLimit, unavailable, drop, latency or partialUpload, not ${String((rule as { kind: unknown }).kind)}`);
  }
}

interface ActiveRule {
  id: number;
  rule: FaultRule;
  matches: Matcher;
  random: (() => number) | null;
  remaining: number;
  fired: number;
  seen: number;
}

type Options<K extends FaultKind['kind']> = Omit<Extract<FaultKind, { kind: K }>, 'kind'> & FaultSchedule;

/** The rules in the order they were added, and the next rule's id. */
interface FaultRules {
  rules: ActiveRule[];
  nextId: number;
}

/** The fault rules of a test marketplace, consulted for every call in the order they were added. */
export function createFaults() {
  const f: FaultRules = { rules: [], nextId: 1 };
  const add = (rule: FaultRule) => addRule(f, rule);
  return {
    add,
    /** A fixed error response: `faults.error('POST /assets', 'CONFLICT')`. */
    error: (target: FaultTarget, code: ErrorCode, options: Omit<Options<'error'>, 'code'> = {}) => add({ ...options, target, kind: 'error', code }),
    /** 429 RATE_LIMITED with Retry-After (default 1 s). */
    rateLimit: (target: FaultTarget, options: Options<'rateLimit'> = {}) => add({ ...options, target, kind: 'rateLimit' }),
    /** 503 SERVICE_UNAVAILABLE with Retry-After (default 1 s). */
    unavailable: (target: FaultTarget, options: Options<'unavailable'> = {}) => add({ ...options, target, kind: 'unavailable' }),
    /** A dropped connection, before (default) or after the marketplace handled the call. */
    drop: (target: FaultTarget, options: Options<'drop'> = {}) => add({ ...options, target, kind: 'drop' }),
    /** Added real latency. */
    latency: (target: FaultTarget, ms: number, options: FaultSchedule = {}) => add({ ...options, target, kind: 'latency', ms }),
    /** A signed-URL PUT that breaks halfway (default target 'upload'). */
    partialUpload: (options: Options<'partialUpload'> & { target?: 'upload' | 'upload:file' | 'upload:image' } = {}) =>
      add({ ...options, target: options.target ?? 'upload', kind: 'partialUpload' }),
    /** Every rule with its counts. */
    list(): FaultStatus[] {
      return f.rules.map((r) => ({
        id: r.id,
        kind: r.rule.kind,
        target: r.rule.target,
        fired: r.fired,
        seen: r.seen,
        remaining: Number.isFinite(r.remaining) ? r.remaining : null,
      }));
    },
    remove(id: number): boolean {
      const before = f.rules.length;
      f.rules = f.rules.filter((r) => r.id !== id);
      return f.rules.length < before;
    },
    clear(): void {
      f.rules = [];
    },
    /** @internal Which faults apply to this call; counts it against every rule it matches. */
    decide: (method: string, path: string, tools: () => readonly string[] = () => []): FaultDecision => decide(f, method, path, tools),
  };
}

function addRule(f: FaultRules, rule: FaultRule): FaultHandle {
  if (typeof rule !== 'object' || rule === null) throw new ConfigurationError(where, 'a rule must be an object with target and kind');
  checkRule(rule);
  const active: ActiveRule = {
    id: f.nextId++,
    rule,
    matches: compileTarget(rule.target),
    random: rule.probability !== undefined ? seededRandom(rule.seed ?? 1) : null,
    remaining: rule.times ?? (rule.probability !== undefined ? Infinity : 1),
    fired: 0,
    seen: 0,
  };
  f.rules.push(active);
  return {
    id: active.id,
    get fired() {
      return active.fired;
    },
    get seen() {
      return active.seen;
    },
    remove: () => {
      f.rules = f.rules.filter((r) => r !== active);
    },
  };
}

function decide(f: FaultRules, method: string, path: string, tools: () => readonly string[]): FaultDecision {
  const decision: FaultDecision = { latencyMs: 0, fault: null };
  for (const r of f.rules) {
    if (!r.matches(method, path, tools)) continue;
    if (r.rule.kind === 'partialUpload' && method !== 'PUT') continue;
    // Once a non-latency fault is chosen, later rules of that sort neither see nor fire on this call.
    if (decision.fault && r.rule.kind !== 'latency') continue;
    r.seen++;
    if (r.remaining <= 0 || r.seen <= (r.rule.skip ?? 0)) continue;
    if (r.random && !(r.random() < r.rule.probability!)) continue;
    r.remaining--;
    r.fired++;
    if (r.rule.kind === 'latency') decision.latencyMs += r.rule.ms;
    else {
      const { target: _t, times: _n, skip: _s, probability: _p, seed: _d, ...kind } = r.rule;
      decision.fault = kind as FaultDecision['fault'];
    }
  }
  return decision;
}

export type Faults = Omit<ReturnType<typeof createFaults>, 'decide'>;

/** The response of an error-like fault, as the marketplace itself would render it. */
export function faultError(fault: Extract<FaultKind, { kind: 'error' | 'rateLimit' | 'unavailable' }>): { status: number; error: ApiError } {
  if (fault.kind === 'error') {
    const error = new ApiError(fault.code, fault.message);
    return { status: fault.status ?? error.status, error };
  }
  const retryAfter = String(fault.retryAfter ?? 1);
  if (fault.kind === 'rateLimit') {
    const error = new ApiError('RATE_LIMITED', undefined, {
      headers: { 'retry-after': retryAfter, 'ratelimit-limit': '0', 'ratelimit-remaining': '0', 'ratelimit-reset': retryAfter },
    });
    return { status: 429, error };
  }
  return { status: 503, error: new ApiError('SERVICE_UNAVAILABLE', undefined, { headers: { 'retry-after': retryAfter } }) };
}
