/**
 * What a check is, and how it says that the server broke a requirement: every assertion names the
 * requirement it verifies, so a failure is always reported against the rule that was broken.
 */
import type { Exchange, HttpClient, SentRequest } from './client.js';

/** The vendor's accounts, as tokens. Only `seller` is required. */
export const fixtureNames = ['seller', 'secondSeller', 'readOnly', 'nonSeller', 'restricted', 'suspended', 'noPayouts', 'revocable'] as const;
export type FixtureName = (typeof fixtureNames)[number];
export type Fixtures = { seller: string } & Partial<Record<Exclude<FixtureName, 'seller'>, string>>;

/** What each fixture is, and the CLI flag that gives it. */
export const fixtureDescriptions: Record<FixtureName, { flag: string; what: string }> = {
  seller: { flag: '--token', what: 'an approved, unrestricted seller with payouts connected and the scheduled_publishing plan feature; all six scopes' },
  secondSeller: { flag: '--token-second-seller', what: 'another approved seller (ownership isolation); assets:read and assets:write at least' },
  readOnly: { flag: '--token-read-only', what: 'a token of the main seller with profile:read and assets:read only' },
  nonSeller: { flag: '--token-non-seller', what: 'an account that is not an approved seller; default scopes' },
  restricted: { flag: '--token-restricted', what: 'an approved seller whose account is restricted; default scopes' },
  suspended: { flag: '--token-suspended', what: 'a suspended account; default scopes' },
  noPayouts: { flag: '--token-no-payouts', what: 'an approved seller without payouts connected and without the scheduled_publishing plan feature; default scopes' },
  revocable: { flag: '--token-revocable', what: 'a second token of the main seller, which the suite revokes (through DELETE /tokens)' },
};

export interface Evidence {
  request?: SentRequest;
  expected: string;
  got?: { status: number; body: unknown };
}

/** The server broke a requirement. */
export class RequirementFailure extends Error {
  constructor(
    readonly requirement: string,
    readonly evidence: Evidence,
    /** For model runs: the calls that reproduce the failure, one curl line each. */
    readonly replay?: string[],
  ) {
    super(`${requirement}: expected ${evidence.expected}${evidence.got ? `, got ${evidence.got.status} ${JSON.stringify(evidence.got.body)}` : ''}`);
    this.name = 'RequirementFailure';
  }
}

/** A check could not run here, for a reason outside the server's conformance (a used-up fixture). */
export class NotCertified extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'NotCertified';
  }
}

export interface CheckContext {
  client: HttpClient;
  fixtures: Fixtures;
  /** A slug no other run has used: `${prefix}-${n}`. */
  slug(label?: string): string;
  /** Options that shape some checks. */
  settings: SuiteSettings;
}

export interface SuiteSettings {
  /** How long the expiry check may wait for an upload URL to expire, in seconds. */
  expiryWaitSeconds: number;
  /** An asset id of the main seller in status published, for LISTING_IS_LIVE (optional). */
  publishedAssetId?: string;
  /** The most requests the rate-limit check may send to reach a 429 (optional; it spends the read-only token's budget). */
  rateLimitProbe?: number;
  /** The window the server's read limit is per, in seconds (default 60: limits are per minute). */
  rateLimitWindowSeconds?: number;
}

export interface Check {
  /** Stable, short: `rest.assets.slug-conflict`. */
  id: string;
  title: string;
  /** The requirements it verifies (ids of the catalogue). */
  requirements: string[];
  /** Fixtures it needs beyond `seller`. */
  needs?: Exclude<FixtureName, 'seller'>[];
  /** A condition besides fixtures: a reason it cannot run, or null. */
  unavailable?: (ctx: CheckContext) => string | null;
  run(ctx: CheckContext): Promise<void>;
}

function gotOf(exchange: Exchange) {
  return { status: exchange.status, body: exchange.body };
}

/** Fails `requirement` unless `condition` holds. */
export function ensure(requirement: string, condition: unknown, expected: string, exchange?: Exchange): asserts condition {
  if (condition) return;
  throw new RequirementFailure(requirement, { ...(exchange ? { request: exchange.request, got: gotOf(exchange) } : {}), expected });
}

/** Fails `requirement` unless the answer has this status (and this error code, when given). */
export function expectStatus(requirement: string, exchange: Exchange, status: number | number[], code?: string | string[]): void {
  const statuses = Array.isArray(status) ? status : [status];
  const codes = code === undefined ? undefined : Array.isArray(code) ? code : [code];
  const expected = `${statuses.join(' or ')}${codes ? ` ${codes.join(' or ')}` : ''}`;
  const bodyCode = typeof exchange.body === 'object' && exchange.body !== null ? (exchange.body as { code?: unknown }).code : undefined;
  if (!statuses.includes(exchange.status) || (codes && !codes.includes(bodyCode as string))) {
    throw new RequirementFailure(requirement, { request: exchange.request, expected, got: gotOf(exchange) });
  }
}

/** An error answer: the status, `{ error: string, code }`, and, for INVALID_INPUT, the field named in the message. */
export function expectError(requirement: string, exchange: Exchange, status: number, code: string | string[], field?: string): void {
  expectStatus(requirement, exchange, status, code);
  ensure(requirement, typeof exchange.body?.error === 'string' && exchange.body.error.length > 0, `an error body { error: string, code } on ${status}`, exchange);
  if (field) ensure(requirement, exchange.body.error.includes(field), `the message to name the field "${field}"`, exchange);
}

/** A tool result that is a domain refusal: `isError: true` and the REST `{ error, code }`. */
export function toolRefusal(exchange: Exchange): { code?: string; error?: string } | null {
  const result = exchange.body?.result;
  if (!result?.isError) return null;
  const text = result.content?.[0]?.text;
  try {
    return typeof text === 'string' ? JSON.parse(text) : result.structuredContent ?? {};
  } catch {
    return result.structuredContent ?? {};
  }
}

/** A tool's successful result (structuredContent, or the JSON in the text), or null. */
export function toolResult(exchange: Exchange): any {
  const result = exchange.body?.result;
  if (!result || result.isError) return null;
  if (result.structuredContent !== undefined) return result.structuredContent;
  try {
    return JSON.parse(result.content?.[0]?.text);
  } catch {
    // No JSON in the text: no result, which the check then reports.
    return null;
  }
}

export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Small valid files for the upload checks. */
export const sampleBytes = {
  zip: new TextEncoder().encode('PK\u0003\u0004 marketkit conformance file'),
  png: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]),
  webp: new Uint8Array([...new TextEncoder().encode('RIFF'), 26, 0, 0, 0, ...new TextEncoder().encode('WEBPVP8 ')]),
};
