/**
 * The secrets every instance of one marketplace must share, from configuration: the upload-signing
 * secret (MARKETKIT_SIGNING_SECRET: an upload URL issued by one instance is checked by another)
 * and the session signing key (MARKETKIT_SESSION_KEY: a session exchanged on one instance is
 * verified by all). `marketkit keys` makes a fresh pair. A data directory keeps its own when
 * these are not set; with a database (several instances) they are required.
 */
import * as v from 'valibot';
import { importJWK, type JWK } from 'jose';
import { generateSessionKey } from '../core/auth/session-keys.js';
import { helpText, parseCommand, UsageError, type CommandSpec } from './args.js';

export interface SharedSecrets {
  signingSecret?: string;
  sessionKey?: JWK;
}

const makeSecret = 'openssl rand -hex 32';
const makeKeys = 'npx marketkit keys';

/** The rows of serve's --help that name these variables. */
export const secretsHelp: [string, string][] = [
  ['MARKETKIT_SIGNING_SECRET', `Env only: signs upload URLs, at least 32 bytes; the same on every instance (make one with: ${makeSecret}). Required with a database; else the data directory keeps one.`],
  ['MARKETKIT_SESSION_KEY', `Env only: signs exchanged sessions, a P-256 private JWK as JSON; the same on every instance (make one with: ${makeKeys}). Required with a database; else the data directory keeps one.`],
  ['MARKETKIT_SERVICE_KEY', `Env only: enables the admin surface /api/admin, at least 32 characters; the same on every instance (make one with: ${makeSecret}).`],
];

/** The secrets set in the environment, checked: a UsageError that says how to make a good one. */
export async function secretsFromEnv(env: NodeJS.ProcessEnv): Promise<SharedSecrets> {
  const secrets: SharedSecrets = {};
  const secret = env.MARKETKIT_SIGNING_SECRET;
  if (secret) {
    if (new TextEncoder().encode(secret).byteLength < 32) {
      throw new UsageError(`MARKETKIT_SIGNING_SECRET must be at least 32 bytes (make one with: ${makeSecret}).`);
    }
    secrets.signingSecret = secret;
  }
  const key = env.MARKETKIT_SESSION_KEY;
  if (key) secrets.sessionKey = await sessionKeyOf(key);
  return secrets;
}

async function sessionKeyOf(text: string): Promise<JWK> {
  const problem = `MARKETKIT_SESSION_KEY must be a P-256 private key as a JSON Web Key, such as {"kty":"EC","crv":"P-256","x":...,"y":...,"d":...} (make one with: ${makeKeys}).`;
  let key: JWK;
  try {
    key = JSON.parse(text) as JWK;
  } catch {
    throw new UsageError(`${problem} It is not JSON.`);
  }
  if (typeof key !== 'object' || key === null || key.kty !== 'EC' || key.crv !== 'P-256' || typeof key.d !== 'string') throw new UsageError(problem);
  try {
    // A key whose numbers are wrong would fail at the first session exchange; fail at start instead.
    await importJWK({ ...key, alg: 'ES256' }, 'ES256');
  } catch {
    throw new UsageError(`${problem} Its key material is not valid.`);
  }
  return { ...key, alg: 'ES256' };
}

/**
 * Refuses to start several instances (a database) without the secrets they must share: made per
 * process, an upload URL or a session issued by one instance would be refused by the others.
 */
export function requireSharedSecrets(secrets: SharedSecrets, why: string): asserts secrets is Required<SharedSecrets> {
  const missing = [
    ...(secrets.signingSecret ? [] : [`MARKETKIT_SIGNING_SECRET (make one with: ${makeSecret})`]),
    ...(secrets.sessionKey ? [] : [`MARKETKIT_SESSION_KEY (make one with: ${makeKeys})`]),
  ];
  if (missing.length === 0) return;
  throw new UsageError(
    `${why}, so every instance must have the same secrets from configuration, or an upload URL or a session issued by one would be refused by the others. ` +
      `Set ${missing.join(' and ')}, the same on every instance; "${makeKeys} > marketkit.env" writes both (docs/deploy.md).`,
  );
}

export const keysCommand = {
  name: 'keys',
  summary: 'Print a fresh upload-signing secret and session key, for the settings every instance shares.',
  usage: 'marketkit keys [--json]',
  options: { json: { type: 'boolean' } },
  help: [['--json', 'Print them as one JSON object: { "signing_secret": "...", "session_key": { JWK } }.']],
  schema: v.object({ json: v.optional(v.boolean(), false) }),
} satisfies CommandSpec<v.GenericSchema>;

/**
 * `marketkit keys`: MARKETKIT_SIGNING_SECRET and MARKETKIT_SESSION_KEY as lines of an environment
 * file (the JSON in single quotes, for a shell's `. file` and systemd's EnvironmentFile), made
 * here with the system's random source. Nothing is stored.
 */
export async function runKeys(argv: string[], out: (line: string) => void): Promise<void> {
  const parsed = parseCommand(keysCommand, argv);
  if (parsed.help) return out(`${helpText(keysCommand)}\n\nEvery instance of one marketplace needs the same two values; keep them with the other secrets of the deployment (docs/deploy.md).`);
  const signingSecret = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex');
  const sessionKey = await generateSessionKey();
  if (parsed.values.json) return out(JSON.stringify({ signing_secret: signingSecret, session_key: sessionKey }));
  out('# MarketKit: the secrets every instance shares (docs/deploy.md). Keep them secret.');
  out(`MARKETKIT_SIGNING_SECRET=${signingSecret}`);
  out(`MARKETKIT_SESSION_KEY='${JSON.stringify(sessionKey)}'`);
}
