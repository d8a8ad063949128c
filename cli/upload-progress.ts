/**
 * What `marketkit upload` shows while it runs (docs/uploads.md, "marketkit upload"): on a terminal
 * one line redrawn in place (a bar, the percent, the bytes, the rate and the time left); anywhere
 * else one JSON object per line, for a program to read. The rate is over the last few seconds, so
 * it follows the connection as it is now, not its average since the start.
 */
import { terminalText } from './terminal-text.js';

export interface ProgressEvent {
  event: 'progress';
  loaded: number;
  total: number;
  percent: number;
  /** Bytes per second over the last seconds; null until there are two reports. */
  rate: number | null;
  /** Seconds left at that rate; null when unknown. */
  eta: number | null;
}

export interface Reporter {
  progress(loaded: number, total: number): void;
  /** A line of its own (resumed, confirmed, an error): the bar, if any, is finished first. */
  line(text: string, json: Record<string, unknown>): void;
}

const window = 5_000;

/** The rate over the last `window` ms of reports. */
function rateMeter() {
  const samples: { at: number; loaded: number }[] = [];
  return (loaded: number, now: number): number | null => {
    samples.push({ at: now, loaded });
    while (samples.length > 2 && now - samples[1]!.at >= window) samples.shift();
    const first = samples[0]!;
    return now > first.at && loaded >= first.loaded ? ((loaded - first.loaded) * 1000) / (now - first.at) : null;
  };
}

function progressEvent(loaded: number, total: number, rate: number | null): ProgressEvent {
  const percent = total === 0 ? 100 : Math.floor((loaded / total) * 1000) / 10;
  const eta = rate && rate > 0 ? Math.ceil((total - loaded) / rate) : loaded === total ? 0 : null;
  return { event: 'progress', loaded, total, percent, rate: rate === null ? null : Math.round(rate), eta };
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`;
}

function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}` : `${m}:${String(s).padStart(2, '0')}`;
}

/** JSON lines: every report, each a whole object on a line of its own. */
export function jsonReporter(write: (text: string) => void, now = () => Date.now()): Reporter {
  const rate = rateMeter();
  let lastAt: number | null = null;
  return {
    // At most five a second (the first and the last always): a PUT reports every 64 KiB.
    progress(loaded, total) {
      const at = now();
      const event = progressEvent(loaded, total, rate(loaded, at));
      if (lastAt !== null && loaded < total && at - lastAt < 200) return;
      lastAt = at;
      write(`${terminalText(JSON.stringify(event))}\n`);
    },
    // JSON.stringify leaves C1 controls and bidirectional marks as they are; terminalText's escapes are JSON's too.
    line: (_text, json) => write(`${terminalText(JSON.stringify(json))}\n`),
  };
}

/**
 * The bar on a terminal, redrawn at most every 100 ms (and at 100 %): carriage return, the line,
 * erase to its end. Only our own control characters reach the terminal: every text in the line
 * went through terminalText.
 */
export function barReporter(write: (text: string) => void, columns: () => number, now = () => Date.now()): Reporter {
  const rate = rateMeter();
  let drawn = false;
  let lastAt = 0;
  return {
    progress(loaded, total) {
      const at = now();
      const event = progressEvent(loaded, total, rate(loaded, at));
      if (drawn && loaded < total && at - lastAt < 100) return;
      lastAt = at;
      const stats = [
        `${event.percent.toFixed(1).padStart(5)}%`,
        `${formatBytes(loaded)} of ${formatBytes(total)}`,
        event.rate === null ? '-- /s' : `${formatBytes(event.rate)}/s`,
        `ETA ${event.eta === null ? '--:--' : formatDuration(event.eta)}`,
      ].join('  ');
      const width = Math.max(10, Math.min(40, columns() - stats.length - 4));
      const filled = Math.round((width * event.percent) / 100);
      write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${terminalText(stats)}\x1b[K`);
      drawn = true;
    },
    line(text) {
      write(`${drawn ? '\n' : ''}${text.split('\n').map(terminalText).join('\n')}\n`);
      drawn = false;
    },
  };
}
