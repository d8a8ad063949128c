#!/usr/bin/env node
// In a checkout of the repository the sources run (through tsx on Node; Bun and Deno run
// TypeScript themselves), so a stale build is never used; the published package has no sources
// and runs the build.
import { existsSync } from 'node:fs';

const source = new URL('../cli/main.ts', import.meta.url);
if (existsSync(source)) {
  const nativeTypeScript = globalThis.Bun !== undefined || globalThis.Deno !== undefined;
  if (!nativeTypeScript) {
    const { register } = await import('tsx/esm/api');
    register();
  }
  await import(source.href);
} else {
  await import(new URL('../dist/cli/main.js', import.meta.url).href);
}
