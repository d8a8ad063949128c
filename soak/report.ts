/**
 * What a soak found (docs/operations.md, "Soak and chaos"): the counts that must be zero, the
 * failures inside and outside the chaos windows by kind, latency per minute beside each instance's
 * memory and descriptors, and a verdict on growth after warm-up.
 */
import type { ChaosWindow, UseSample } from './chaos.js';
import type { HealthChange, ReadinessWatch } from './health.js';
import type { Sample } from './http.js';

export interface SoakReport {
  durationS: number;
  peakPerSecond: number;
  targetPerSecond: number;
  requests: number;
  byOperation: Record<string, number>;
  /** The counts that must be zero, each with its examples. */
  lostWrites: string[];
  digestMismatches: string[];
  staleReads: string[];
  wrongAnswers: string[];
  idempotencyViolations: string[];
  uploadsConfirmed: number;
  /** Uploads given up: reported, not a failure by itself (a chaos window can outlast an upload's patience). */
  uploadFailures: string[];
  /** 5xx answers (and answers that never came) outside every chaos window. */
  failuresOutsideWindows: { at: number; op: string; status: number; note?: string }[];
  failuresInsideWindows: number;
  /** "op status" -> count, inside and outside the windows. */
  failuresByKind: { inside: Record<string, number>; outside: Record<string, number> };
  /** "op status" -> the start of the first such answer's body. */
  failureExamples: Record<string, string>;
  /** Each chaos event's window, with the 5xx and missing answers that fell in it. */
  windows: (ChaosWindow & { failures: number })[];
  minutes: { minute: number; requests: number; p50Ms: number; p99Ms: number; failures: number; instances: Record<string, { rssMiB: number; fds: number }> }[];
  instances: { instance: string; process: string; samples: number; spanS: number; firstRssMiB: number; warmRssMiB: number; lastRssMiB: number; warmFds: number; lastFds: number; judged: boolean; grows: boolean }[];
  /** haproxy's view: every change of an instance's state, with its health check's status. */
  health: HealthChange[];
  /** Each instance's own /readyz, asked directly twice a second: which store it found slow or failing. */
  readiness: ReadinessWatch;
  /** Every memory and descriptor sample (every 5 s of each instance process). */
  use: UseSample[];
  ok: boolean;
}

const quantile = (sorted: number[], q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
const median = (values: number[]) => quantile([...values].sort((a, b) => a - b), 0.5);
const MiB = 2 ** 20;
const mib = (bytes: number) => Number((bytes / MiB).toFixed(1));
const failed = (s: Sample) => s.status === 0 || s.status >= 500;

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(item);
  }
  return groups;
}

export function minuteStats(samples: Sample[], use: UseSample[]): SoakReport['minutes'] {
  const useByMinute = groupBy(use, (u) => Math.floor(u.at / 60_000));
  return [...groupBy(samples, (s) => Math.floor(s.at / 60_000))].sort(([a], [b]) => a - b).map(([minute, list]) => {
    const ms = list.map((s) => s.ms).sort((a, b) => a - b);
    // Each instance's last sample of the minute.
    const instances: Record<string, { rssMiB: number; fds: number }> = {};
    for (const u of useByMinute.get(minute) ?? []) instances[u.instance] = { rssMiB: mib(u.rss), fds: u.fds };
    return { minute, requests: list.length, p50Ms: Number(quantile(ms, 0.5).toFixed(1)), p99Ms: Number(quantile(ms, 0.99).toFixed(1)), failures: list.filter(failed).length, instances };
  });
}

/** A process is judged once its samples span this long: a shorter life is all warm-up. */
const judgedAfterMs = 150_000;

/**
 * Growth after warm-up, for each instance process that ran long enough: the median of its last
 * fifth of samples against the median of its second fifth (the first is warm-up). Memory grows
 * when the end is more than 25 % and 24 MiB above; descriptors when more than 16 above.
 */
export function growth(use: UseSample[]): SoakReport['instances'] {
  return [...groupBy(use, (s) => `${s.instance} ${s.pid}`)].map(([key, list]) => {
    const fifth = Math.max(1, Math.floor(list.length / 5));
    const warm = list.length >= 2 ? list.slice(fifth, 2 * fifth) : list;
    const last = list.slice(-fifth);
    const warmRss = median(warm.map((s) => s.rss));
    const lastRss = median(last.map((s) => s.rss));
    const warmFds = median(warm.map((s) => s.fds));
    const lastFds = median(last.map((s) => s.fds));
    const spanMs = list[list.length - 1]!.at - list[0]!.at;
    const judged = spanMs >= judgedAfterMs;
    return {
      instance: list[0]!.instance,
      process: key,
      samples: list.length,
      spanS: Math.round(spanMs / 1000),
      firstRssMiB: mib(list[0]!.rss),
      warmRssMiB: mib(warmRss),
      lastRssMiB: mib(lastRss),
      warmFds,
      lastFds,
      judged,
      grows: judged && ((lastRss > warmRss * 1.25 && lastRss - warmRss > 24 * MiB) || lastFds > warmFds + 16),
    };
  });
}

const kindOf = (s: Sample) => `${s.op} ${s.status || 'no answer'}`;
const countByKind = (samples: Sample[]) => Object.fromEntries([...groupBy(samples, kindOf)].map(([kind, list]) => [kind, list.length]));

export function failuresOutside(samples: Sample[], windows: ChaosWindow[]) {
  const failures = samples.filter(failed);
  // A request in flight when the event began is the event's too: its connection was cut under it.
  const inWindow = (w: ChaosWindow) => (s: Sample) => s.at + s.ms >= w.from && s.at <= w.to;
  const inside = (s: Sample) => windows.some((w) => inWindow(w)(s));
  const outside = failures.filter((s) => !inside(s));
  const within = failures.filter(inside);
  const examples: Record<string, string> = {};
  for (const s of failures) if (s.note && !(kindOf(s) in examples)) examples[kindOf(s)] = s.note;
  return {
    outside: outside.map(({ at, op, status, note }) => ({ at, op, status, ...(note ? { note } : {}) })),
    inside: within.length,
    windows: windows.map((w) => ({ ...w, failures: within.filter(inWindow(w)).length })),
    byKind: { inside: countByKind(within), outside: countByKind(outside) },
    examples,
  };
}

const examples = (list: string[]) => (list.length ? ` (${list.slice(0, 5).join('; ')}${list.length > 5 ? '; ...' : ''})` : '');
const kinds = (counts: Record<string, number>) => Object.entries(counts).map(([kind, n]) => `${kind}: ${n}`).join(', ') || 'none';

export function printReport(report: SoakReport, say: (line: string) => void): void {
  say('');
  say(`soak: ${report.durationS} s, ${report.requests} requests at ${report.targetPerSecond.toFixed(0)}/s (peak measured ${report.peakPerSecond.toFixed(0)}/s)`);
  say(`  by operation: ${Object.entries(report.byOperation).map(([op, n]) => `${op} ${n}`).join(', ')}`);
  say(`  acknowledged writes lost: ${report.lostWrites.length}${examples(report.lostWrites)}`);
  say(`  uploads confirmed: ${report.uploadsConfirmed}; stored bytes differing from their digest: ${report.digestMismatches.length}${examples(report.digestMismatches)}`);
  if (report.uploadFailures.length) say(`  uploads given up: ${report.uploadFailures.length}${examples(report.uploadFailures)}`);
  say(`  reads missing an acknowledged listing: ${report.staleReads.length}${examples(report.staleReads)}`);
  say(`  wrong answers: ${report.wrongAnswers.length}${examples(report.wrongAnswers)}`);
  say(`  idempotency violations: ${report.idempotencyViolations.length}${examples(report.idempotencyViolations)}`);
  say(`  5xx or no answer outside the chaos windows: ${report.failuresOutsideWindows.length} (${kinds(report.failuresByKind.outside)})`);
  for (const failure of report.failuresOutsideWindows.slice(0, 10)) say(`    at ${(failure.at / 1000).toFixed(1)} s: ${failure.op} ${failure.status || 'no answer'} ${failure.note ?? ''}`);
  say(`  inside them: ${report.failuresInsideWindows} (${kinds(report.failuresByKind.inside)})`);
  for (const [kind, note] of Object.entries(report.failureExamples)) say(`    ${kind} said: ${note}`);
  say(`  chaos: ${report.windows.map((w) => `${w.what} ${(w.from / 1000).toFixed(0)}-${(w.to / 1000).toFixed(0)} s (${w.failures} failed${w.recovered ? '' : ', NOT RECOVERED'})`).join('; ') || 'none'}`);
  const changes = report.health;
  say(`  haproxy: ${changes.slice(0, 24).map((h) => `${h.instance} ${h.status} at ${(h.at / 1000).toFixed(1)} s${h.status === 'UP' ? '' : ` (${h.check} ${h.checkMs} ms)`}`).join('; ') || 'every instance UP throughout'}${changes.length > 24 ? `; ${changes.length - 24} more` : ''}`);
  const r = report.readiness;
  say(`  /readyz asked directly: ${r.polls} times, ${r.missCount} not 200; checks not ok: ${Object.entries(r.byCheck).map(([name, states]) => `${name} ${Object.entries(states).map(([state, n]) => `${state} ${n}`).join(', ')}`).join('; ') || 'none'}`);
  say(`  s3rver slower than a second to answer: ${r.blobStoreSlow.length} times${r.blobStoreSlow.slice(0, 12).map((s) => ` ${(s.at / 1000).toFixed(0)} s: ${s.ms} ms`).join(';')}`);
  for (const miss of r.misses.slice(0, 10)) say(`    at ${(miss.at / 1000).toFixed(1)} s: ${miss.instance} ${miss.status || 'no answer'} after ${miss.ms} ms ${JSON.stringify(miss.checks)}`);
  const names = [...new Set(report.use.map((u) => u.instance))].sort();
  say(`  minute  requests  p50 ms  p99 ms  5xx/none${names.map((n) => `  ${`${n}: RSS MiB/fds`.padStart(15)}`).join('')}`);
  for (const m of report.minutes) {
    const use = names.map((n) => `  ${(m.instances[n] ? `${m.instances[n]!.rssMiB}/${m.instances[n]!.fds}` : '-').padStart(15)}`).join('');
    say(`  ${String(m.minute).padStart(6)}  ${String(m.requests).padStart(8)}  ${String(m.p50Ms).padStart(6)}  ${String(m.p99Ms).padStart(6)}  ${String(m.failures).padStart(8)}${use}`);
  }
  say('  process          lived s  RSS MiB first/warm/last  fds warm/last  grows after warm-up');
  for (const i of report.instances) {
    const verdict = !i.judged ? `not judged (under ${judgedAfterMs / 1000} s)` : i.grows ? 'YES' : 'no';
    say(`  ${i.process.padEnd(16)} ${String(i.spanS).padStart(7)}  ${`${i.firstRssMiB}/${i.warmRssMiB}/${i.lastRssMiB}`.padStart(23)}  ${`${i.warmFds}/${i.lastFds}`.padStart(13)}  ${verdict}`);
  }
  say(report.ok ? 'soak: every check held' : 'soak: FAILED');
}
