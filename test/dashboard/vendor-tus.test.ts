/**
 * The dashboard's vendored tus client (core/dashboard/vendor/tus.ts, written by scripts/vendor-tus.mjs)
 * is the installed tus-js-client's browser bundle: after an update of the package, run the script,
 * or this fails. And the dashboard serves it at /dashboard/static/tus.min.js.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { tusClientScript, tusClientVersion } from '../../core/dashboard/vendor/tus.js';

const root = new URL('../../', import.meta.url);

test('the vendored tus client is the installed package’s dist/tus.min.js (run node scripts/vendor-tus.mjs after an update)', () => {
  const installed = JSON.parse(readFileSync(new URL('node_modules/tus-js-client/package.json', root), 'utf8')) as { version: string };
  assert.equal(tusClientVersion, installed.version);
  const bundle = readFileSync(new URL('node_modules/tus-js-client/dist/tus.min.js', root), 'utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n');
  assert.ok(tusClientScript() === bundle, 'the checked-in copy equals the package’s file');
});
