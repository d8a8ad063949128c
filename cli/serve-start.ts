/**
 * What `marketkit serve` and `marketkit serve --memory --test-controls` (cli/serve-test-controls.ts)
 * share: the one JSON line `--json` prints once serving, and the stop on SIGINT or SIGTERM.
 */

/** The line `--json` prints: where it serves, its storage, the dev seller, and what else the mode adds. */
export function startLine(base: string, storage: object, devSeller: { id: string; username: string; token: string | null }, extra: object = {}): string {
  return JSON.stringify({
    url: base,
    api: `${base}/api/v1`,
    storage,
    dev_seller: { id: devSeller.id, username: devSeller.username, token: devSeller.token },
    ...extra,
  });
}

/**
 * Resolves once SIGINT or SIGTERM came and `stop` settled (a failure of it too). Listening starts
 * at the call, before the banner says so: a signal right after it must stop cleanly. `say` (none
 * with --json) is told "Stopping…".
 */
export function stopOnSignal(say: ((line: string) => void) | null, stop: () => Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve) => {
    const onSignal = () => {
      say?.('Stopping…');
      stop().then(() => resolve(), () => resolve());
    };
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  });
}
