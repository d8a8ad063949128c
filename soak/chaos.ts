/**
 * The chaos of a soak: an instance SIGKILLed and started again every `killEveryMs` (taking turns,
 * the first instance spared so that one process runs throughout), PostgreSQL and Redis restarted
 * once each. Each event is a window, from its start until the balancer has every instance up again
 * and a few seconds more: the 5xx and refused connections inside one are the chaos's, outside one
 * they are failures. Beside it, each instance's resident memory and open file descriptors.
 */
import { processUse, type Cluster } from './cluster.js';
import { watchHealth, watchReadiness } from './health.js';
import { sleep } from './ledger.js';

export interface ChaosWindow {
  what: string;
  /** ms since the run began */
  from: number;
  to: number;
  /** Every instance was up again (haproxy's health checks) within 2 minutes. */
  recovered: boolean;
}

export interface UseSample {
  at: number;
  instance: string;
  pid: number;
  rss: number;
  fds: number;
}

/** After the balancer sees every instance up again: answers already in flight may still come back 5xx. */
const settleMs = 5000;

export function startChaos(cluster: Cluster, options: { killEveryMs: number; restarts: boolean; durationMs: number }, startedAt: number, say: (line: string) => void) {
  const windows: ChaosWindow[] = [];
  const use: UseSample[] = [];
  let stopped = false;
  const now = () => Date.now() - startedAt;
  /** Runs `event`, then waits for every backend UP: its window. */
  async function windowOf(what: string, event: () => Promise<void>): Promise<void> {
    const from = now();
    say(`chaos at ${(from / 1000).toFixed(0)} s: ${what}`);
    // A failed event still has its window (what it broke stays broken until every instance is up).
    await event().catch((error) => say(`  ${what} failed: ${(error as Error).message.split('\n')[0]}`));
    const up = await cluster.haproxy.allUp(120_000).then(
      () => true,
      // Not all up within two minutes: said below, and the window is kept as not recovered.
      () => false,
    );
    if (!up) say(`  not every instance back up within 2 minutes after: ${what}`);
    windows.push({ what, from, to: now() + settleMs, recovered: up });
  }
  const health = watchHealth(cluster.haproxy, now);
  const readiness = watchReadiness(cluster.instances, cluster.s3.endpoint, now);
  const sampler = setInterval(() => {
    for (const instance of cluster.instances) {
      const found = processUse(instance.process.pid);
      if (found) use.push({ at: now(), instance: instance.name, pid: instance.process.pid, ...found });
    }
  }, 5000);
  const done = (async () => {
    const events: { at: number; what: string; run: () => Promise<void> }[] = [];
    let turn = 0;
    for (let at = options.killEveryMs * 0.4; options.killEveryMs > 0 && at < options.durationMs - 5000; at += options.killEveryMs) {
      const index = 1 + (turn++ % (cluster.instances.length - 1));
      events.push({ at, what: `SIGKILL instance ${cluster.instances[index]!.name}`, run: async () => {
        await cluster.kill(index);
        await sleep(2000);
        await cluster.start(index);
      } });
    }
    // Halfway between two kills, so that what a restart leaves behind shows after its window
    // instead of inside the next kill's.
    const kill = options.killEveryMs;
    const between = (share: number) => (kill > 0 ? 0.4 * kill + Math.max(0, Math.floor((share * options.durationMs - 0.4 * kill) / kill)) * kill + kill / 2 : share * options.durationMs);
    if (options.restarts) {
      events.push({ at: between(1 / 3), what: 'restart PostgreSQL', run: async () => {
        await cluster.postgres.pause();
        await sleep(3000);
        await cluster.postgres.resume();
      } });
      events.push({ at: between(2 / 3), what: 'restart Redis', run: async () => {
        await cluster.redis.pause();
        await sleep(3000);
        await cluster.redis.resume();
      } });
    }
    events.sort((a, b) => a.at - b.at);
    for (const event of events) {
      while (!stopped && event.at > now()) await sleep(Math.min(200, event.at - now()));
      if (stopped) return;
      await windowOf(event.what, event.run);
    }
  })();
  return {
    windows,
    use,
    health: health.changes,
    readiness: readiness.result,
    async stop() {
      stopped = true;
      clearInterval(sampler);
      health.stop();
      readiness.stop();
      await done;
    },
  };
}
