/** `npm run soak` options: parsed, checked, and the --help that lists them. */
import { parseArgs } from 'node:util';

export interface SoakOptions {
  durationMs: number;
  /** The share of the measured peak the load runs at. */
  fraction: number;
  instances: number;
  killEveryMs: number;
  /** Restart PostgreSQL and Redis once each (on by default for runs of 3 minutes and more). */
  restarts: boolean;
  uploaders: number;
  json: string | null;
}

export const soakHelp = `Usage: npm run soak -- [--duration 30m] [options]

A soak with chaos (docs/operations.md, "Soak and chaos"): PostgreSQL, Redis and s3rver on this
machine, N marketkit serve instances on them behind haproxy, mixed load at a share of the measured
peak while an instance is SIGKILLed every minute or so and PostgreSQL and Redis restart once each.
Then it checks every acknowledged write and every upload's stored bytes, and reports.

  --duration <time>     How long the load runs: 90s, 30m, 1h (default 30m).
  --fraction <0..1>     The share of the measured peak to run at (default 0.7).
  --instances <n>       marketkit serve instances behind haproxy (default 3, at least 2).
  --kill-every <time>   SIGKILL an instance (never the first: it runs throughout, for the growth check) this often (default 60s).
  --no-restarts         Do not restart PostgreSQL and Redis (they restart once each by default from 3 minutes on).
  --uploaders <n>       Resumable uploads running at once (default 2).
  --json <file>         Write the whole report as JSON to this file too.
  --help                This text.

Exit codes: 0 every check held; 1 a check failed (a lost write, a digest mismatch, a 5xx outside
the chaos windows, an idempotency violation); 2 a usage error.`;

export function parseDuration(text: string, name: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new Error(`--${name} must be a time such as 90s, 30m or 1h, not ${JSON.stringify(text)}`);
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
}

export function parseSoakOptions(argv: string[]): SoakOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '30m' },
      fraction: { type: 'string', default: '0.7' },
      instances: { type: 'string', default: '3' },
      'kill-every': { type: 'string', default: '60s' },
      'no-restarts': { type: 'boolean', default: false },
      uploaders: { type: 'string', default: '2' },
      json: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return 'help';
  const fraction = Number(values.fraction);
  if (!(fraction > 0 && fraction <= 1)) throw new Error(`--fraction must be above 0 and at most 1, not ${values.fraction}`);
  const instances = Number(values.instances);
  if (!Number.isInteger(instances) || instances < 2 || instances > 8) throw new Error(`--instances must be a whole number from 2 to 8, not ${values.instances}`);
  const uploaders = Number(values.uploaders);
  if (!Number.isInteger(uploaders) || uploaders < 0 || uploaders > 16) throw new Error(`--uploaders must be a whole number from 0 to 16, not ${values.uploaders}`);
  const durationMs = parseDuration(values.duration!, 'duration');
  return {
    durationMs,
    fraction,
    instances,
    killEveryMs: parseDuration(values['kill-every']!, 'kill-every'),
    restarts: !values['no-restarts'] && durationMs >= 180_000,
    uploaders,
    json: values.json ?? null,
  };
}
