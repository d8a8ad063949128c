/**
 * `npm run soak`: the whole service under mixed load and chaos (docs/operations.md, "Soak and
 * chaos"). Only addresses of this machine are used; every loop is bounded by the duration, and
 * everything it started is stopped at the end, on Ctrl-C too.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { startChaos } from './chaos.js';
import { startCluster, type Cluster } from './cluster.js';
import { SoakHttp } from './http.js';
import { measurePeak, newLedger, oneOperation, oneUpload, type Ledger } from './load.js';
import { parseSoakOptions, soakHelp, type SoakOptions } from './options.js';
import { failuresOutside, growth, minuteStats, printReport, type SoakReport } from './report.js';

/** Requests of the mix in flight at most: past it the dispatcher skips (the server is behind, and the report shows it). */
const maxInFlight = 128;

export async function runSoak(options: SoakOptions, say: (line: string) => void = (line) => console.log(line)): Promise<SoakReport> {
  const cluster = await startCluster(options.instances, say);
  const stopOnSignal = () => void cluster.stop().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  try {
    return await soakOn(cluster, options, say);
  } finally {
    process.removeListener('SIGINT', stopOnSignal);
    await cluster.stop();
  }
}

async function soakOn(cluster: Cluster, options: SoakOptions, say: (line: string) => void): Promise<SoakReport> {
  const ledger = newLedger();
  const warm = new SoakHttp(cluster.balancer, cluster.token, Date.now());
  const peak = await measurePeak(warm, ledger, 3000);
  warm.close();
  const target = Math.max(1, peak * options.fraction);
  say(`peak ${peak.toFixed(0)} operations/s; running at ${target.toFixed(0)}/s for ${(options.durationMs / 1000).toFixed(0)} s`);

  const startedAt = Date.now();
  const http = new SoakHttp(cluster.balancer, cluster.token, startedAt);
  const chaos = startChaos(cluster, options, startedAt, say);
  const until = startedAt + options.durationMs;
  let inFlight = 0;
  const running = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    running.add(work);
    void work.finally(() => running.delete(work));
  };
  // Open loop: operations are started at the target rate whether or not earlier ones answered.
  const dispatcher = (async () => {
    let due = Date.now();
    while (Date.now() < until) {
      due += 1000 / target;
      const wait = due - Date.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (inFlight >= maxInFlight) continue;
      inFlight++;
      track(oneOperation(http, ledger).finally(() => inFlight--));
    }
  })();
  const uploaders = Array.from({ length: options.uploaders }, async () => {
    while (Date.now() < until) await oneUpload(http, ledger);
  });
  const progress = setInterval(() => say(`  ${((Date.now() - startedAt) / 1000).toFixed(0)} s: ${http.samples.length} requests, ${ledger.uploads.length} uploads confirmed`), 60_000);
  await dispatcher;
  await Promise.all([...uploaders, ...running]);
  clearInterval(progress);
  await chaos.stop();
  await cluster.haproxy.allUp(60_000);
  const report = await check(cluster, http, ledger, chaos, { peak, target, durationMs: Date.now() - startedAt });
  http.close();
  return report;
}

/** The checks once the load has stopped and every instance is up. */
async function check(cluster: Cluster, http: SoakHttp, ledger: Ledger, chaos: ReturnType<typeof startChaos>, figures: { peak: number; target: number; durationMs: number }): Promise<SoakReport> {
  const lostWrites: string[] = [];
  for (const [id, expected] of ledger.listings) {
    const stored = await http.send('check', 'GET', `/api/v1/assets/${id}`, { record: false });
    if (stored.status !== 200) lostWrites.push(`${id}: acknowledged, now ${stored.status}`);
    else if (stored.json.title !== expected.title && !expected.unknown.includes(stored.json.title)) lostWrites.push(`${id}: title ${JSON.stringify(stored.json.title)}, acknowledged ${JSON.stringify(expected.title)}`);
  }
  const digestMismatches: string[] = [];
  for (const upload of ledger.uploads) {
    const bytes = cluster.storedObject(`${cluster.prefix}${upload.storagePath}`);
    const stored = bytes ? createHash('sha256').update(bytes).digest('hex') : 'missing';
    if (stored !== upload.sha256 || upload.recorded !== upload.sha256) digestMismatches.push(`${upload.storagePath}: sent ${upload.sha256}, recorded ${upload.recorded}, stored ${stored}`);
  }
  const { outside, inside } = failuresOutside(http.samples, chaos.windows);
  const instances = growth(chaos.use);
  const byOperation: Record<string, number> = {};
  for (const sample of http.samples) byOperation[sample.op] = (byOperation[sample.op] ?? 0) + 1;
  const ok = lostWrites.length === 0 && digestMismatches.length === 0 && ledger.idempotencyViolations.length === 0 && outside.length === 0 && !instances.some((i) => i.grows);
  return {
    durationS: Math.round(figures.durationMs / 1000),
    peakPerSecond: figures.peak,
    targetPerSecond: figures.target,
    requests: http.samples.length,
    byOperation,
    lostWrites,
    digestMismatches,
    idempotencyViolations: ledger.idempotencyViolations,
    uploadsConfirmed: ledger.uploads.length,
    uploadFailures: ledger.uploadFailures,
    failuresOutsideWindows: outside,
    failuresInsideWindows: inside,
    windows: chaos.windows,
    minutes: minuteStats(http.samples),
    instances,
    ok,
  };
}

async function main(): Promise<number> {
  let options: SoakOptions | 'help';
  try {
    options = parseSoakOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`npm run soak: ${(error as Error).message}\n\n${soakHelp}`);
    return 2;
  }
  if (options === 'help') {
    console.log(soakHelp);
    return 0;
  }
  const report = await runSoak(options);
  printReport(report, (line) => console.log(line));
  if (options.json) writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
  return report.ok ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error('npm run soak:', error);
      process.exit(1);
    },
  );
}
