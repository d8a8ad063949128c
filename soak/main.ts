/**
 * `npm run soak`: the whole service under mixed load and chaos (docs/operations.md, "Soak and
 * chaos"). Only addresses of this machine are used; every loop is bounded by the duration, and
 * everything it started is stopped at the end, on Ctrl-C (and SIGTERM) too.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { startChaos } from './chaos.js';
import { startCluster, Teardown, type Cluster } from './cluster.js';
import { SoakHttp } from './http.js';
import { newLedger, sleep, type Ledger } from './ledger.js';
import { measurePeak, oneOperation } from './load.js';
import { parseSoakOptions, soakHelp, type SoakOptions } from './options.js';
import { failuresOutside, growth, minuteStats, printReport, type SoakReport } from './report.js';
import { oneUpload } from './upload.js';

/** Requests of the mix in flight at most: past it the dispatcher skips (the server is behind, and the report shows it). */
const maxInFlight = 128;
/** How long an upload running when the load stops may take to finish. */
const uploadOvertimeMs = 60_000;

export async function runSoak(options: SoakOptions, say: (line: string) => void = (line) => console.log(line)): Promise<SoakReport> {
  const began = Date.now();
  const stamped = (line: string) => say(`[${((Date.now() - began) / 1000).toFixed(1).padStart(6)} s] ${line}`);
  const teardown = new Teardown();
  // Ctrl-C reaches the whole process group (npm, tsx, this process; SIGTERM may follow from npm):
  // every signal waits for the one teardown, PostgreSQL included (pg_ctl runs it in a session of its own).
  const onSignal = (signal: NodeJS.Signals) => {
    stamped(`${signal}: stopping everything the soak started`);
    void teardown.run().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const cluster = await startCluster(options.instances, stamped, teardown, options.logs);
    return await soakOn(cluster, options, stamped);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await teardown.run();
  }
}

async function soakOn(cluster: Cluster, options: SoakOptions, say: (line: string) => void): Promise<SoakReport> {
  const ledger = newLedger();
  const warm = new SoakHttp(cluster.balancer, cluster.token, Date.now());
  const peak = await measurePeak(warm, ledger, options.peakMs);
  warm.close();
  const target = options.rate ?? Math.max(1, peak * options.fraction);
  say(`peak ${peak.toFixed(0)} operations/s; running at ${target.toFixed(0)}/s for ${(options.durationMs / 1000).toFixed(0)} s`);

  const startedAt = Date.now();
  const http = new SoakHttp(cluster.balancer, cluster.token, startedAt);
  const chaos = startChaos(cluster, options, startedAt, say);
  const until = startedAt + options.durationMs;
  let inFlight = 0;
  let skipped = 0;
  const running = new Set<Promise<void>>();
  // Open loop: operations start at the target rate whether or not earlier ones have answered.
  const dispatcher = (async () => {
    for (let due = Date.now(); Date.now() < until; ) {
      due += 1000 / target;
      const wait = due - Date.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (inFlight >= maxInFlight) {
        skipped++;
        continue;
      }
      inFlight++;
      const work = oneOperation(http, ledger).finally(() => {
        inFlight--;
        running.delete(work);
      });
      running.add(work);
    }
  })();
  const uploaders = Array.from({ length: options.uploaders }, async () => {
    while (Date.now() < until) await oneUpload(http, ledger, until + uploadOvertimeMs);
  });
  const progress = setInterval(() => say(`${http.samples.length} requests, ${ledger.uploads.length} uploads confirmed`), 60_000);
  await dispatcher;
  await Promise.all([...uploaders, ...running]);
  clearInterval(progress);
  await chaos.stop();
  await cluster.haproxy.allUp(60_000);
  if (skipped > 0) say(`${skipped} operations not sent: ${maxInFlight} were already in flight`);
  say('load stopped; checking every acknowledged write and every upload');
  const report = await check(cluster, http, ledger, chaos, { peak, target, durationMs: Date.now() - startedAt });
  http.close();
  return report;
}

/** Runs `each` over `items`, `width` at a time. */
async function inParallel<T>(items: T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await each(items[next++]!);
  }));
}

/**
 * One listing read back for the final check. A 503 (or no answer) says the service could not
 * answer then, not that the listing is gone: asked again for up to a minute, so that a moment of
 * unreadiness is not counted as a lost write; a 404, or a 503 that lasts a minute, is reported.
 */
async function readBack(http: SoakHttp, id: string) {
  const until = Date.now() + 60_000;
  for (;;) {
    const stored = await http.send('check', 'GET', `/api/v1/assets/${id}`, { record: false });
    if ((stored.status !== 503 && stored.status !== 0) || Date.now() > until) return stored;
    await sleep(1000);
  }
}

/** The checks once the load has stopped and every instance is up. */
async function check(cluster: Cluster, http: SoakHttp, ledger: Ledger, chaos: ReturnType<typeof startChaos>, figures: { peak: number; target: number; durationMs: number }): Promise<SoakReport> {
  const lostWrites: string[] = [];
  const files = new Map(ledger.uploads.map((upload) => [upload.listingId, upload]));
  await inParallel([...ledger.listings], 8, async ([id, expected]) => {
    const stored = await readBack(http, id);
    if (stored.status !== 200) return void lostWrites.push(`${id}: acknowledged, now ${stored.status}`);
    if (stored.json.title !== expected.title && !expected.unknown.includes(stored.json.title)) lostWrites.push(`${id}: title ${JSON.stringify(stored.json.title)}, acknowledged ${JSON.stringify(expected.title)}`);
    const file = files.get(id);
    if (file && (stored.json.file?.storage_path !== file.storagePath || stored.json.file?.sha256 !== file.sha256)) lostWrites.push(`${id}: file ${JSON.stringify(stored.json.file)}, confirmed ${file.storagePath} ${file.sha256}`);
  });
  const digestMismatches: string[] = [];
  for (const upload of ledger.uploads) {
    // The stored bytes themselves, as s3rver keeps them on disk: read without the marketplace or the S3 API.
    const bytes = cluster.storedObject(`${cluster.prefix}${upload.storagePath}`);
    const stored = bytes ? createHash('sha256').update(bytes).digest('hex') : 'missing';
    if (stored !== upload.sha256 || upload.recorded !== upload.sha256) digestMismatches.push(`${upload.storagePath}: sent ${upload.sha256}, recorded ${upload.recorded}, stored ${stored}`);
  }
  const failures = failuresOutside(http.samples, chaos.windows);
  const instances = growth(chaos.use);
  const byOperation: Record<string, number> = {};
  for (const sample of http.samples) byOperation[sample.op] = (byOperation[sample.op] ?? 0) + 1;
  const mustBeEmpty = [lostWrites, digestMismatches, ledger.staleReads, ledger.wrongAnswers, ledger.idempotencyViolations, failures.outside];
  const ok = mustBeEmpty.every((list) => list.length === 0) && chaos.windows.every((w) => w.recovered) && !instances.some((i) => i.grows);
  return {
    durationS: Math.round(figures.durationMs / 1000),
    peakPerSecond: figures.peak,
    targetPerSecond: figures.target,
    requests: http.samples.length,
    byOperation,
    lostWrites,
    digestMismatches,
    staleReads: ledger.staleReads,
    wrongAnswers: ledger.wrongAnswers,
    idempotencyViolations: ledger.idempotencyViolations,
    uploadsConfirmed: ledger.uploads.length,
    uploadFailures: ledger.uploadFailures,
    failuresOutsideWindows: failures.outside,
    failuresInsideWindows: failures.inside,
    failuresByKind: failures.byKind,
    failureExamples: failures.examples,
    windows: failures.windows,
    minutes: minuteStats(http.samples, chaos.use),
    instances,
    health: chaos.health,
    readiness: chaos.readiness,
    use: chaos.use,
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
  if (options.json) {
    writeFileSync(options.json, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`the whole report: ${options.json}`);
  }
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
