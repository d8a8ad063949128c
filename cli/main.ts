#!/usr/bin/env node
import { marketkitVersion } from '../core/marketplace.js';
import { UsageError } from './args.js';
import { runServe, serveCommand } from './serve.js';
import { openapiCommand, runOpenapi } from './openapi.js';
import { runToken } from './token.js';
import { conformanceCommand, runConformanceCommand } from './conformance.js';
import { mcpCommand, runMcp } from './mcp.js';
import { runAdmin } from './admin.js';
import { migrateCommand, runMigrate } from './migrate.js';
import { keysCommand, runKeys } from './secrets.js';
import { runUpload, uploadCommand } from './upload.js';
import { releaseCommand, runRelease } from './release.js';
import { terminalWriter } from './terminal-text.js';

/** Every command's output to a person, through the one terminal escaping (cli/terminal-text.ts). */
const print = terminalWriter((text) => console.log(text));
const printError = terminalWriter((text) => console.error(text));

// A command resolves to its exit code, or to nothing for 0.
const commands: Record<string, { summary: string; run: (argv: string[]) => Promise<void | number> }> = {
  serve: { summary: serveCommand.summary, run: (argv) => runServe(argv, process.env, print) },
  openapi: { summary: openapiCommand.summary, run: (argv) => runOpenapi(argv, process.env, print) },
  token: { summary: 'Create, list and revoke developer tokens of the server’s accounts (token create|list|revoke), on the data directory or the database.', run: (argv) => runToken(argv, process.env, print) },
  conformance: { summary: conformanceCommand.summary, run: (argv) => runConformanceCommand(argv, print) },
  // The local MCP process's stdout is its JSON-RPC stream to a program, not a terminal: as it is.
  mcp: { summary: mcpCommand.summary, run: (argv) => runMcp(argv, process.env, (text) => console.log(text)) },
  admin: { summary: 'Moderate listings; manage accounts, categories and tokens (the admin surface, on the data directory or the database).', run: (argv) => runAdmin(argv, process.env, print) },
  migrate: { summary: migrateCommand.summary, run: (argv) => runMigrate(argv, process.env, print) },
  keys: { summary: keysCommand.summary, run: (argv) => runKeys(argv, print) },
  upload: { summary: uploadCommand.summary, run: (argv) => runUpload(argv, process.env, print) },
  release: { summary: releaseCommand.summary, run: (argv) => runRelease(argv, process.env, print) },
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
    return (await command.run(rest)) ?? 0;
  } catch (error) {
    if (error instanceof UsageError) {
      printError(`marketkit ${name}: ${error.message}`);
      return 2;
    }
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      console.error(`marketkit ${name}: the port is already in use; pick another with --port or PORT.`);
      return 1;
    }
    printError(`marketkit ${name}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

// `marketkit openapi | head` closes our stdout early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
