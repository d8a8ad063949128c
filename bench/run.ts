/**
 * `npm run bench`: every bench/*.bench.ts in turn, each in its own process, its output shown as
 * it comes. Arguments are passed on to each (`npm run bench -- --seconds 5`). Never part of `npm test`.
 */
import './help.js';
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const benches = readdirSync(dir)
  .filter((name) => name.endsWith('.bench.ts'))
  .sort();
let failed = 0;
for (const name of benches) {
  console.log(`\n== bench/${name}`);
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', `${dir}${name}`, ...process.argv.slice(2)], { stdio: 'inherit' });
    child.once('exit', resolve);
  });
  if (code !== 0) {
    failed++;
    console.error(`bench/${name} failed (exit ${code})`);
  }
}
process.exitCode = failed ? 1 : 0;
