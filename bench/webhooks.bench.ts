/**
 * What the webhook outbox costs a write, and how fast a backlog drains (docs/performance.md,
 * "Webhooks: the outbox's cost and a backlog's drain"), on SQLite (better-sqlite3, WAL,
 * synchronous=FULL, as `marketkit serve` runs it):
 *
 * - POST /api/v1/assets in four servers, measured in turns in one run: with the events left out
 *   (what a write cost before the outbox), with the outbox and no endpoint, with an endpoint
 *   subscribed and no worker (the outbox's own cost: an event row and a delivery row in the
 *   write's transaction), and with the worker delivering every event to a receiver as it comes.
 * - A backlog of 10,000 events, each queued to one endpoint, delivered by one worker's passes to a
 *   receiver that answers 204 at once: events per second until the last is recorded.
 *
 *   npx tsx bench/webhooks.bench.ts [--seconds 2] [--rounds 3] [--connections 10] [--backlog 10000]
 */
import './help.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { StoragePort } from '../core/ports/storage.js';
import { formatFigures, load, startChild, stopChild, type Figures, type Target } from './lib.js';

const script = fileURLToPath(import.meta.url);

type Case = 'no-outbox' | 'no-endpoint' | 'endpoint' | 'delivering';
const cases: Record<Case, string> = {
  'no-outbox': 'events left out (before the outbox)',
  'no-endpoint': 'outbox, no endpoint',
  endpoint: 'outbox, 1 endpoint, no worker',
  delivering: 'outbox, 1 endpoint, worker delivering',
};

/** A receiver as cheap as Node allows: reads the body, answers 204; counts. */
async function serveReceiver(): Promise<{ url: string }> {
  let received = 0;
  const server = createServer((req, res) => {
    if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received }));
    req.resume();
    req.once('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The storage with every change's event dropped: the write as it was before the outbox. */
function withoutOutbox(storage: StoragePort): StoragePort {
  return {
    ...storage,
    createAsset: (asset) => storage.createAsset(asset),
    updateAsset: (id, revision, changes) => storage.updateAsset(id, revision, changes),
    deleteAsset: (id, revision) => storage.deleteAsset(id, revision),
    addImage: (image, max) => storage.addImage(image, max),
    arrangeImages: (assetId, ids) => storage.arrangeImages(assetId, ids),
    revokeToken: (accountId, id, at) => storage.revokeToken(accountId, id, at),
    changeVersion: storage.changeVersion?.bind(storage),
  };
}

/** A seller with a token, an endpoint to `receiver` when asked for, and the marketplace on SQLite in a temporary directory. */
async function marketplaceFor(kind: Case | 'drain', receiver: string) {
  const { sqliteStorage } = await import('../adapters/sqlite/index.js');
  const { memoryBlobs } = await import('../adapters/memory/index.js');
  const { nodeWebhookSender } = await import('../bindings/node/index.js');
  const { createMarketplace } = await import('../core/marketplace.js');
  const dir = mkdtempSync(join(tmpdir(), 'marketkit-bench-webhooks-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  process.once('SIGTERM', () => process.exit(0));
  const storage = await sqliteStorage({ path: join(dir, 'marketkit.db'), ...(kind === 'drain' ? { synchronous: 'normal' as const } : {}) });
  const room = { limit: 1e9, windowSeconds: 60 };
  const local = { allowHttp: true, allowPrivateAddresses: true };
  const marketplace = createMarketplace({
    storage: kind === 'no-outbox' ? withoutOutbox(storage) : storage,
    blobs: memoryBlobs(),
    rateLimits: { read: room, write: room, upload: room },
    webhooks: { ...local, sender: nodeWebhookSender(local) },
    onError: (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ECONNRESET') console.error('bench server error:', error);
    },
  });
  const seller = await marketplace.admin.createAccount({ username: 'bench', seller_status: 'approved', payouts_connected: true });
  const { token } = await marketplace.admin.createToken({ accountId: seller.id, name: 'bench', scopes: ['assets:read', 'assets:write', 'webhooks:read', 'webhooks:write'] });
  if (kind === 'endpoint' || kind === 'delivering' || kind === 'drain') {
    const now = new Date().toISOString();
    await storage.insertWebhookEndpoint(
      { id: crypto.randomUUID(), account_id: seller.id, url: `${receiver}/hooks`, description: null, event_types: ['*'], enabled: true, disabled_reason: null, disabled_at: null, secret: `whsec_${btoa('bench-secret-bench-secret')}`, previous_secret: null, previous_secret_expires_at: null, failing_since: null, created_at: now, updated_at: now },
      10,
    );
  }
  return { marketplace, storage, seller, token };
}

/** Child: a server for one case, printing its URL and token. */
async function serveCase(kind: Case, receiver: string): Promise<{ url: string; token: string }> {
  const { serve } = await import('../bindings/node/index.js');
  const { marketplace, token } = await marketplaceFor(kind, receiver);
  if (kind === 'delivering') marketplace.webhooks.startWorker();
  const running = await serve(marketplace, { port: 0, host: '127.0.0.1' });
  return { url: running.url, token };
}

/** Child: `backlog` events queued, then one worker's passes until none is due; events per second. */
async function drain(backlog: number, receiver: string) {
  const { marketplace, storage, seller } = await marketplaceFor('drain', receiver);
  const at = new Date().toISOString();
  for (let i = 0; i < backlog; i++) {
    await storage.insertWebhookEvent({ id: crypto.randomUUID(), type: 'asset.updated', account_id: seller.id, subject_id: crypto.randomUUID(), created_at: at, data: JSON.stringify({ asset: { id: crypto.randomUUID(), title: 'Bench Pack', status: 'draft' }, previous_status: 'draft' }) });
  }
  const started = performance.now();
  let passes = 0;
  while ((await marketplace.webhooks.deliverDue()).attempted > 0) passes++;
  const seconds = (performance.now() - started) / 1000;
  const succeeded = (await storage.listWebhookDeliveries({ accountId: seller.id, statuses: ['succeeded'], limit: 1, offset: 0 })).total;
  return { backlog, succeeded, passes, seconds, rate: succeeded / seconds };
}

function mean(all: Figures[]): Figures {
  const average = (pick: (f: Figures) => number) => all.reduce((sum, f) => sum + pick(f), 0) / all.length;
  return { rps: average((f) => f.rps), p50: average((f) => f.p50), p99: average((f) => f.p99) };
}

async function main() {
  const { values } = parseArgs({
    options: {
      serve: { type: 'string' },
      receiver: { type: 'string', default: '' },
      seconds: { type: 'string', default: '2' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      backlog: { type: 'string', default: '10000' },
    },
  });
  if (values.serve === 'receiver') return console.log(JSON.stringify(await serveReceiver()));
  if (values.serve === 'drain') return console.log(JSON.stringify(await drain(Number(values.backlog), values.receiver)));
  if (values.serve) return console.log(JSON.stringify(await serveCase(values.serve as Case, values.receiver)));

  const options = { seconds: Number(values.seconds), connections: Number(values.connections) };
  const rounds = Number(values.rounds);
  const receiver = await startChild<{ url: string }>(script, ['--serve', 'receiver']);
  try {
    const servers = new Map<Case, Awaited<ReturnType<typeof startChild<{ url: string; token: string }>>>>();
    for (const kind of Object.keys(cases) as Case[]) servers.set(kind, await startChild(script, ['--serve', kind, '--receiver', receiver.info.url]));
    const runs = new Map<Case, Figures[]>([...servers.keys()].map((k) => [k, []]));
    try {
      // Every case once per round, in turns, so that all see the same machine.
      for (let round = 0; round < rounds; round++) {
        for (const [kind, server] of servers) {
          let created = 0;
          const target: Target = {
            name: kind,
            url: `${server.info.url}/api/v1/assets`,
            method: 'POST',
            headers: { authorization: `Bearer ${server.info.token}`, 'content-type': 'application/json' },
            nextBody: () => JSON.stringify({ title: 'Bench Pack', slug: `bench-${round}-${++created}`, tags: ['bench'] }),
          };
          runs.get(kind)!.push(await load(target, options));
        }
      }
    } finally {
      for (const server of servers.values()) await stopChild(server.child);
    }
    const received = (await (await fetch(receiver.info.url)).json()) as { received: number };
    console.log(`POST /api/v1/assets on SQLite (WAL, synchronous=FULL), Node ${process.version}, ${options.connections} connections, ${rounds} x ${options.seconds} s per case, in turns`);
    const before = mean(runs.get('no-outbox')!);
    for (const [kind, figures] of runs) {
      const m = mean(figures);
      console.log(`${formatFigures(cases[kind], m)}   ${(m.rps / before.rps).toFixed(2)} of no outbox   (rounds: ${figures.map((f) => Math.round(f.rps)).join(', ')})`);
    }
    const cost = 1 - mean(runs.get('endpoint')!).rps / mean(runs.get('no-endpoint')!).rps;
    console.log(`  an endpoint subscribed slows POST /assets by ${(cost * 100).toFixed(1)} % against no endpoint (target: at most 15 %: ${cost <= 0.15 ? 'met' : 'MISSED'}); the receiver got ${received.received} deliveries`);

    const drained = await startChild<{ backlog: number; succeeded: number; passes: number; seconds: number; rate: number }>(script, ['--serve', 'drain', '--backlog', values.backlog, '--receiver', receiver.info.url]);
    await stopChild(drained.child);
    const d = drained.info;
    console.log(`A backlog of ${d.backlog} events to one endpoint: ${d.succeeded} delivered in ${d.seconds.toFixed(1)} s by ${d.passes} passes of 20: ${Math.round(d.rate)} events/s`);
  } finally {
    await stopChild(receiver.child);
  }
}

await main();
