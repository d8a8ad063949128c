// `npm run build`: the ESM and CommonJS builds (tsup), then the declarations (tsc, one file per
// source file), copied under dist/cjs/ where a package.json makes them CommonJS declarations.
// Why two builds and how they are chosen: docs/packaging.md.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
const run = (script, args) => execFileSync(process.execPath, [require.resolve(script), ...args], { cwd: root, stdio: 'inherit' });

rmSync(dist, { recursive: true, force: true });
run('tsup/dist/cli-default.js', []);
run('typescript/bin/tsc', ['-p', 'tsconfig.build.json']);

// Each subpath's CommonJS file is its part of the one bundle (scripts/cjs-entry.ts).
const cjs = join(dist, 'cjs');
const bundle = require(join(cjs, 'marketkit.cjs'));
const { exports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
for (const [subpath, target] of Object.entries(exports)) {
  if (typeof target === 'string') continue;
  const name = subpath === '.' ? 'core' : subpath.slice(2).replaceAll('/', '_');
  if (!bundle[name]) throw new Error(`scripts/cjs-entry.ts exports nothing as ${name}, for the subpath ${subpath}`);
  const file = join(root, target.require.default);
  mkdirSync(dirname(file), { recursive: true });
  const from = relative(dirname(file), join(cjs, 'marketkit.cjs'));
  writeFileSync(file, `'use strict';\nmodule.exports = require(${JSON.stringify(from.startsWith('.') ? from : `./${from}`)}).${name};\n`);
}

// The same declarations describe the CommonJS build: its exports are the ESM build's, by name.
writeFileSync(join(cjs, 'package.json'), '{ "type": "commonjs" }\n');
const copyDeclarations = (from, to) => {
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    if (source === cjs) continue;
    if (statSync(source).isDirectory()) copyDeclarations(source, join(to, name));
    else if (name.endsWith('.d.ts')) cpSync(source, join(to, name));
  }
};
copyDeclarations(dist, cjs);
