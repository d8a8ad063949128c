import type { Ports, Settings } from './context.js';

export interface HealthReport {
  status: 'ok' | 'degraded';
  version: string;
  checks: { storage: 'ok' | 'error'; blobs: 'ok' | 'error' };
}

const timeoutMs = 2000;

async function probe(check: () => Promise<void>): Promise<'ok' | 'error'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch {
    return 'error';
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the stores answer. Says which check failed and nothing about why. */
export async function checkHealth(ports: Pick<Ports, 'storage' | 'blobs'>, settings: Pick<Settings, 'version'>): Promise<HealthReport> {
  const [storage, blobs] = await Promise.all([probe(() => ports.storage.ping()), probe(() => ports.blobs.ping())]);
  return { status: storage === 'ok' && blobs === 'ok' ? 'ok' : 'degraded', version: settings.version, checks: { storage, blobs } };
}
