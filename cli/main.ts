#!/usr/bin/env node
import { marketkitVersion } from '../core/marketplace.js';
import { UsageError } from './args.js';
import { runServe, serveCommand } from './serve.js';

const commands: Record<string, { summary: string; run: (argv: string[]) => Promise<void> }> = {
  serve: { summary: serveCommand.summary, run: (argv) => runServe(argv, process.env, (line) => console.log(line)) },
};

function usage(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  return [
    `MarketKit ${marketkitVersion}: the marketplace developer API as an embeddable library.`,
    '',
    'Usage: marketkit <command> [options]',
    '',
    'Commands:',
    ...Object.entries(commands).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`),
    '',
    'Run "marketkit <command> --help" for the options of a command.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(usage());
    return name ? 0 : 1;
  }
  if (name === '--version' || name === '-v') {
    console.log(marketkitVersion);
    return 0;
  }
  const command = commands[name];
  if (!command) {
    console.error(`marketkit: unknown command "${name}".\n\n${usage()}`);
    return 2;
  }
  try {
    await command.run(rest);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`marketkit ${name}: ${error.message}`);
      return 2;
    }
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(`marketkit ${name}: the port is already in use; pick another with --port or PORT.`);
      return 1;
    }
    console.error(`marketkit ${name}:`, error instanceof Error ? error.message : error);
    return 1;
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
