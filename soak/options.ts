/** `npm run soak` options: parsed, checked, and the --help that lists them. */
import { parseArgs } from 'node:util';

export interface SoakOptions {
  durationMs: number;
  /** The share of the measured peak the load runs at. */
  fraction: number;
  /** A fixed rate (operations a second) instead of the share of the peak; null for the share. */
  rate: number | null;
  /** How long the closed-loop burst that measures the peak lasts. */
  peakMs: number;
  instances: number;
  killEveryMs: number;
  /** Restart PostgreSQL and Redis once each. */
  restarts: boolean;
  uploaders: number;
  json: string | null;
  /** Where each instance process's log goes (one file per process), or null for nowhere. */
  logs: string | null;
}

export const soakHelp = `Usage: npm run soak -- [--duration 30m] [options]

A soak with chaos (docs/operations.md, "Soak and chaos"): PostgreSQL, Redis and s3rver on this
machine (127.0.0.1 only), N marketkit serve instances on them behind haproxy, mixed load at a share
of the measured peak while an instance is SIGKILLed every minute or so and PostgreSQL and Redis
restart once each. Then it checks every acknowledged write and every upload's stored bytes, and
reports. Everything it started is stopped at the end, and on Ctrl-C.

  --duration <time>     How long the load runs: 90s, 30m, 1h (default 30m).
  --fraction <0..1>     The share of the measured peak to run at (default 0.7).
  --rate <n>            Run at n operations a second instead (the peak is still measured and reported).
  --peak-for <time>     How long the closed-loop burst that measures the peak lasts (default 3s).
  --instances <n>       marketkit serve instances behind haproxy (default 3, from 2 to 8).
  --kill-every <time>   SIGKILL an instance this often and start it again (default 60s; 0 for never). The
                        instances take turns, the first one spared: it runs throughout, for the growth check.
  --restarts            Restart PostgreSQL (a third of the way in) and Redis (two thirds in) once each.
                        On by default for runs of 3 minutes and more.
  --no-restarts         Do not restart them.
  --uploaders <n>       Resumable uploads (6 MiB, in 2 MiB PATCHes) running at once (default 2).
  --json <file>         Write the whole report as JSON to this file too.
  --logs <dir>          Keep what each instance process printed (its JSON log, stderr) in this folder, a file per process.
  --help                This text.

Exit codes: 0 every check held; 1 a check failed (a lost write, a digest mismatch, a read that missed
an acknowledged write, a wrong answer, an idempotency violation, a 5xx or no answer outside the chaos
windows, an instance not up again within 2 minutes, growth after warm-up); 2 a usage error.`;

export function parseDuration(text: string, name: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new Error(`--${name} must be a time such as 90s, 30m or 1h, not ${JSON.stringify(text)}`);
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
}

function wholeNumber(text: string, name: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}, not ${text}`);
  return value;
}

export function parseSoakOptions(argv: string[]): SoakOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      duration: { type: 'string', default: '30m' },
      fraction: { type: 'string', default: '0.7' },
      rate: { type: 'string' },
      'peak-for': { type: 'string', default: '3s' },
      instances: { type: 'string', default: '3' },
      'kill-every': { type: 'string', default: '60s' },
      restarts: { type: 'boolean' },
      'no-restarts': { type: 'boolean' },
      uploaders: { type: 'string', default: '2' },
      json: { type: 'string' },
      logs: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const fraction = Number(values.fraction);
  if (!(fraction > 0 && fraction <= 1)) throw new Error(`--fraction must be above 0 and at most 1, not ${values.fraction}`);
  const rate = values.rate === undefined ? null : Number(values.rate);
  if (rate !== null && !(rate > 0 && rate <= 100_000)) throw new Error(`--rate must be a number of operations a second above 0, not ${values.rate}`);
  if (values.restarts && values['no-restarts']) throw new Error('--restarts and --no-restarts contradict each other: give one');
  const durationMs = parseDuration(values.duration!, 'duration');
  if (durationMs < 1000) throw new Error(`--duration must be at least 1s, not ${values.duration}`);
  const peakMs = parseDuration(values['peak-for']!, 'peak-for');
  if (peakMs < 500) throw new Error(`--peak-for must be at least 500ms, not ${values['peak-for']}`);
  return {
    durationMs,
    fraction,
    rate,
    peakMs,
    instances: wholeNumber(values.instances!, 'instances', 2, 8),
    killEveryMs: parseDuration(values['kill-every']!, 'kill-every'),
    restarts: values.restarts ?? (!values['no-restarts'] && durationMs >= 180_000),
    uploaders: wholeNumber(values.uploaders!, 'uploaders', 0, 16),
    json: values.json ?? null,
    logs: values.logs ?? null,
  };
}
