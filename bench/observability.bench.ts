/**
 * What an operator's view costs (#32): `GET /assets/{id}` on memory with metrics counting, with
 * tracing through the OpenTelemetry API and no SDK registered (the no-op a library's users get
 * until they register one), and with both, in turns against the same server with both off. Four
 * children, the same seed; rounds alternate them; the figure is the mean over rounds. The floor:
 * each at most 5 % slower than off (a ratio of at least 0.95), printed met or NOT met.
 *
 *   npx tsx bench/observability.bench.ts [--seconds 2] [--rounds 4] [--connections 10]
 */
import './help.js';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatFigures, load, startChild, stopChild, type Figures } from './lib.js';

const script = fileURLToPath(import.meta.url);
const variants = { off: { metrics: false, tracing: false }, metrics: { metrics: true, tracing: false }, tracing: { metrics: false, tracing: true }, both: { metrics: true, tracing: true } } as const;
type Variant = keyof typeof variants;

/** Child: the marketplace on memory with a seller and 100 listings, metrics and tracing as `variant` says. */
async function serveVariant(variant: Variant): Promise<{ url: string; token: string; assetId: string }> {
  const { memoryBlobs, memoryStorage } = await import('../adapters/memory/index.js');
  const { serve, openTelemetryTracing } = await import('../bindings/node/index.js');
  const { createMarketplace } = await import('../core/marketplace.js');
  const { seedSeller } = await import('./seed.js');
  const storage = memoryStorage();
  const { token, assetId } = await seedSeller(storage, 100);
  const room = { limit: 1e9, windowSeconds: 60 };
  const { metrics, tracing } = variants[variant];
  const marketplace = createMarketplace({
    storage,
    blobs: memoryBlobs(),
    rateLimits: { read: room, write: room, upload: room },
    metrics,
    ...(tracing ? { tracing: await openTelemetryTracing() } : {}),
    onError: (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') console.error('bench server error:', error);
    },
  });
  const running = await serve(marketplace, { port: 0, host: '127.0.0.1' });
  return { url: running.url, token, assetId };
}

const { values } = parseArgs({
  options: {
    serve: { type: 'string' },
    seconds: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '4' },
    connections: { type: 'string', default: '10' },
  },
});
if (values.serve) {
  process.once('SIGTERM', () => process.exit(0));
  console.log(JSON.stringify(await serveVariant(values.serve as Variant)));
} else {
  const options = { seconds: Number(values.seconds), connections: Number(values.connections) };
  const names = Object.keys(variants) as Variant[];
  const children = new Map<Variant, Awaited<ReturnType<typeof startChild<{ url: string; token: string; assetId: string }>>>>();
  for (const name of names) children.set(name, await startChild(script, ['--serve', name]));
  const figures = new Map<Variant, Figures[]>(names.map((name) => [name, []]));
  try {
    for (let round = 0; round < Number(values.rounds); round++) {
      for (const name of names) {
        const { info } = children.get(name)!;
        const target = { name, url: `${info.url}/api/v1/assets/${info.assetId}`, method: 'GET' as const, headers: { authorization: `Bearer ${info.token}` } };
        figures.get(name)!.push(await load(target, options));
      }
    }
  } finally {
    for (const { child } of children.values()) await stopChild(child);
  }
  const mean = (runs: Figures[]): Figures => ({
    rps: runs.reduce((sum, f) => sum + f.rps, 0) / runs.length,
    p50: runs.reduce((sum, f) => sum + f.p50, 0) / runs.length,
    p99: runs.reduce((sum, f) => sum + f.p99, 0) / runs.length,
  });
  const off = mean(figures.get('off')!);
  console.log(`GET /assets/{id} on memory, ${values.rounds} rounds of ${values.seconds} s in turns, ${values.connections} connections`);
  console.log(formatFigures('metrics and tracing off', off));
  for (const name of names.filter((n) => n !== 'off')) {
    const figure = mean(figures.get(name)!);
    const ratio = figure.rps / off.rps;
    console.log(`${formatFigures(name === 'both' ? 'metrics on, no-op tracing' : name === 'metrics' ? 'metrics on' : 'no-op tracing (API, no SDK)', figure)}   ${ratio.toFixed(3)} of off`);
    console.log(`  floor: ${name} at most 5 % slower than off: ${ratio >= 0.95 ? 'met' : 'NOT met'}`);
  }
}
