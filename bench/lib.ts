/**
 * What every benchmark shares: servers in child processes on 127.0.0.1 (on a 2-core machine one
 * core serves while autocannon loads from the other), a bounded autocannon run with a warm-up,
 * a bare node:http baseline, and one way to print the figures.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

/** One kind of request to load a server with. */
export interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** A fixed body; or `nextBody`, called for every request (unique slugs). */
  body?: string;
  nextBody?: () => string;
  /** Called for every request: a path other than `url`'s (listings in turn). */
  nextPath?: () => string;
}

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
}

export interface LoadOptions {
  seconds: number;
  connections: number;
}

/**
 * Starts `script` (a .ts file, through tsx) with `args` as a child that prints one JSON line once it
 * serves; resolves with that line. The child is killed when this process exits, whatever happens.
 */
export function startChild<T>(script: string, args: string[]): Promise<{ child: ChildProcess; info: T }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.off('exit', kill));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server ${script} ${args.join(' ')} exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, info: JSON.parse(line) as T }));
  });
}

/** Stops a child started by startChild and waits for it to be gone. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** One autocannon run against `target`: a 1-second warm-up, then `seconds` measured. */
export async function load(target: Target, { seconds, connections }: LoadOptions): Promise<Figures> {
  const { nextBody, nextPath } = target;
  const run = (duration: number) =>
    autocannon({
      url: target.url,
      connections,
      duration,
      requests: [
        {
          method: target.method,
          headers: target.headers,
          ...(target.body !== undefined ? { body: target.body } : {}),
          ...(nextBody || nextPath
            ? {
                setupRequest: (request: autocannon.Request) => ({
                  ...request,
                  ...(nextBody ? { body: nextBody() } : {}),
                  ...(nextPath ? { path: nextPath() } : {}),
                }),
              }
            : {}),
        },
      ],
    });
  await run(1);
  const result = await run(seconds);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/**
 * The baseline: bare node:http answering a fixed JSON body of `bytes` bytes to any request, after
 * reading the request's body, as cheaply as Node can. Run it in a child, like the server measured.
 */
export async function serveBareJson(bytes: number): Promise<string> {
  const filler = 'x'.repeat(Math.max(0, bytes - '{"data":""}'.length));
  const body = Buffer.from(`{"data":"${filler}"}`);
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.byteLength });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** The size of the body `target` answers with, to size its baseline. */
export async function responseBytes(target: Target): Promise<number> {
  const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.nextBody?.() ?? target.body ?? null });
  if (!response.ok) throw new Error(`${target.name} answered ${response.status}: ${await response.text()}`);
  return (await response.arrayBuffer()).byteLength;
}

export function formatFigures(name: string, figures: Figures, baseline?: Figures): string {
  const ratio = baseline ? `   ${(figures.rps / baseline.rps).toFixed(2)} of bare node:http` : '';
  return `  ${name.padEnd(34)} ${Math.round(figures.rps).toString().padStart(7)} req/s   p99 ${figures.p99.toFixed(1).padStart(5)} ms${ratio}`;
}

/** CPU seconds a process has used (user + system, all its threads), from /proc on Linux; null elsewhere. */
export function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in ticks of 1/100 s
  } catch {
    return null;
  }
}

/**
 * Starts a CPU profile of this process (the inspector's sampling profiler); the function returned
 * stops it and writes it to `file`, a .cpuprofile that Chrome DevTools and VS Code open.
 */
export async function startCpuProfile(file: string): Promise<() => Promise<void>> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}
