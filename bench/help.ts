/**
 * `--help` (or `-h`) on any bench script: prints the script's opening comment (what it measures,
 * against what, and its usage line) and exits before the script reads its flags. Every bench
 * imports it first.
 */
import { readFileSync } from 'node:fs';
import process from 'node:process';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  const comment = /^\/\*\*([\s\S]*?)\*\//.exec(readFileSync(process.argv[1]!, 'utf8'))?.[1] ?? '';
  console.log(
    comment
      .split('\n')
      .map((line) => line.replace(/^\s*\* ?/, ''))
      .join('\n')
      .trim(),
  );
  process.exit(0);
}
