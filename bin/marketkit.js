#!/usr/bin/env node
// The published package runs the built CLI; a checkout of the repository runs the sources through tsx.
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../cli/main.ts', import.meta.url).href);
}
