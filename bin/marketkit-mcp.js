#!/usr/bin/env node
// `marketkit-mcp` is `marketkit mcp`: the local MCP server over stdio, for an mcpServers entry
// whose command takes no arguments. In a checkout the sources run through tsx; the published
// package runs the build.
import { existsSync } from 'node:fs';

process.argv.splice(2, 0, 'mcp');
const source = new URL('../cli/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/cli/main.js', import.meta.url).href);
}
