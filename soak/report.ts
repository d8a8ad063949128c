/**
 * What a soak found (docs/operations.md, "Soak and chaos"): the counts that must be zero, latency
 * per minute, and each instance's memory and descriptors over time with a verdict on growth.
 */
import type { ChaosWindow, UseSample } from './chaos.js';
import type { Sample } from './http.js';

export interface SoakReport {
  durationS: number;
  peakPerSecond: number;
  targetPerSecond: number;
  requests: number;
  byOperation: Record<string, number>;
  lostWrites: string[];
  digestMismatches: string[];
  idempotencyViolations: string[];
  uploadsConfirmed: number;
  uploadFailures: string[];
  /** 5xx answers (and answers that never came) outside every chaos window. */
  failuresOutsideWindows: { at: number; op: string; status: number }[];
  failuresInsideWindows: number;
  windows: ChaosWindow[];
  minutes: { minute: number; requests: number; p50Ms: number; p99Ms: number; failures: number }[];
  instances: { instance: string; samples: number; firstRssMiB: number; warmRssMiB: number; lastRssMiB: number; warmFds: number; lastFds: number; grows: boolean; process: string }[];
  ok: boolean;
}

const quantile = (sorted: number[], q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
const median = (values: number[]) => quantile([...values].sort((a, b) => a - b), 0.5);
const MiB = 2 ** 20;

export function minuteStats(samples: Sample[]): SoakReport['minutes'] {
  const byMinute = new Map<number, Sample[]>();
  for (const sample of samples) {
    const minute = Math.floor(sample.at / 60_000);
    if (!byMinute.has(minute)) byMinute.set(minute, []);
    byMinute.get(minute)!.push(sample);
  }
  return [...byMinute].sort(([a], [b]) => a - b).map(([minute, list]) => {
    const ms = list.map((s) => s.ms).sort((a, b) => a - b);
    return { minute, requests: list.length, p50Ms: Number(quantile(ms, 0.5).toFixed(1)), p99Ms: Number(quantile(ms, 0.99).toFixed(1)), failures: list.filter((s) => s.status === 0 || s.status >= 500).length };
  });
}

/**
 * Growth after warm-up, for each instance process that ran long enough: the median of its last
 * fifth against the median of its second fifth (the first is warm-up). Memory grows when the end
 * is more than 25 % and 24 MiB above; descriptors when more than 16 above.
 */
export function growth(use: UseSample[]): SoakReport['instances'] {
  const byProcess = new Map<string, UseSample[]>();
  for (const sample of use) {
    const key = `${sample.instance} ${sample.pid}`;
    if (!byProcess.has(key)) byProcess.set(key, []);
    byProcess.get(key)!.push(sample);
  }
  return [...byProcess].map(([key, list]) => {
    const fifth = Math.max(1, Math.floor(list.length / 5));
    const warm = list.length >= 2 ? list.slice(fifth, 2 * fifth) : list;
    const last = list.slice(-fifth);
    const warmRss = median(warm.map((s) => s.rss));
    const lastRss = median(last.map((s) => s.rss));
    const warmFds = median(warm.map((s) => s.fds));
    const lastFds = median(last.map((s) => s.fds));
    const judged = list.length >= 10;
    return {
      instance: list[0]!.instance,
      process: key,
      samples: list.length,
      firstRssMiB: Number((list[0]!.rss / MiB).toFixed(1)),
      warmRssMiB: Number((warmRss / MiB).toFixed(1)),
      lastRssMiB: Number((lastRss / MiB).toFixed(1)),
      warmFds,
      lastFds,
      grows: judged && (lastRss > warmRss * 1.25 && lastRss - warmRss > 24 * MiB || lastFds > warmFds + 16),
    };
  });
}

export function failuresOutside(samples: Sample[], windows: ChaosWindow[]) {
  const failed = samples.filter((s) => s.status === 0 || s.status >= 500);
  // A request in flight when the event began is the event's too: its connection was cut under it.
  const inside = (s: Sample) => windows.some((w) => s.at + s.ms >= w.from && s.at <= w.to);
  return { outside: failed.filter((s) => !inside(s)).map(({ at, op, status }) => ({ at, op, status })), inside: failed.filter(inside).length };
}

export function printReport(report: SoakReport, say: (line: string) => void): void {
  say('');
  say(`soak: ${report.durationS} s, ${report.requests} requests at ${report.targetPerSecond.toFixed(0)}/s (peak measured ${report.peakPerSecond.toFixed(0)}/s)`);
  say(`  by operation: ${Object.entries(report.byOperation).map(([op, n]) => `${op} ${n}`).join(', ')}`);
  say(`  acknowledged writes lost: ${report.lostWrites.length}${report.lostWrites.length ? ` (${report.lostWrites.slice(0, 5).join('; ')})` : ''}`);
  say(`  uploads confirmed: ${report.uploadsConfirmed}; stored bytes differing from their digest: ${report.digestMismatches.length}${report.uploadFailures.length ? `; given up: ${report.uploadFailures.length} (${report.uploadFailures.slice(0, 3).join('; ')})` : ''}`);
  say(`  idempotency violations: ${report.idempotencyViolations.length}`);
  say(`  5xx or no answer outside the chaos windows: ${report.failuresOutsideWindows.length}; inside them: ${report.failuresInsideWindows}`);
  for (const failure of report.failuresOutsideWindows.slice(0, 10)) say(`    at ${(failure.at / 1000).toFixed(1)} s: ${failure.op} ${failure.status || 'no answer'}`);
  say(`  chaos: ${report.windows.map((w) => `${w.what} ${(w.from / 1000).toFixed(0)}-${(w.to / 1000).toFixed(0)} s`).join('; ') || 'none'}`);
  say('  minute  requests  p50 ms  p99 ms  5xx/none');
  for (const m of report.minutes) say(`  ${String(m.minute).padStart(6)}  ${String(m.requests).padStart(8)}  ${String(m.p50Ms).padStart(6)}  ${String(m.p99Ms).padStart(6)}  ${String(m.failures).padStart(8)}`);
  say('  process            samples  RSS MiB first/warm/last  fds warm/last  grows');
  for (const i of report.instances) say(`  ${i.process.padEnd(18)} ${String(i.samples).padStart(7)}  ${`${i.firstRssMiB}/${i.warmRssMiB}/${i.lastRssMiB}`.padStart(23)}  ${`${i.warmFds}/${i.lastFds}`.padStart(13)}  ${i.grows ? 'YES' : 'no'}`);
  say(report.ok ? 'soak: every check held' : 'soak: FAILED');
}
