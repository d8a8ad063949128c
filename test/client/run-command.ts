import { spawn } from 'node:child_process';

const root = new URL('../../', import.meta.url);

/** Runs a command from the repository root (or `cwd`) to its end, killed after 2 minutes. */
export function runCommand(bin: string, args: string[], env: Record<string, string>, cwd = root.pathname): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(bin, args, { cwd, env: { ...process.env, ...env, NO_COLOR: '1' } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
