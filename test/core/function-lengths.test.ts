/**
 * A request path a reader can follow (issue 45): outside the test suites no function is over 150
 * lines, and at most ten are over 80, nested functions counted in the function around them (which
 * is what makes a factory of closures long: lift its methods into named module-level functions).
 * scripts/function-lengths.mjs measures; `node scripts/function-lengths.mjs` lists the longest.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { functionLengths, functionsOf } from '../../scripts/function-lengths.mjs';

const longest = 150;
const long = 80;
const mostLong = 10;

const describe = (f: { file: string; line: number; name: string; lines: number }) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`;

test('the measure counts a function with its nested functions, and leaves a conformance test body out', () => {
  const factory = ['export function factory() {', '  return {', '    get() {', '      return 1;', '    },', '  };', '}'].join('\n');
  const measured = functionsOf('core/example.ts', factory);
  assert.deepEqual(
    measured.map((f) => [f.name, f.lines]),
    [
      ['factory', 7],
      ['get', 3],
    ],
  );
  const suite = ['export function runSuite(test) {', '  register({', "    'reads back': async (port) => {", '      await port.get();', '    },', '  });', '}'].join('\n');
  assert.deepEqual(
    functionsOf('conformance/ports/example.suite.ts', suite).map((f) => [f.name, f.lines]),
    [['runSuite', 4]],
  );
});

test(`no function outside the test suites is over ${longest} lines, and at most ${mostLong} are over ${long}`, () => {
  const all = functionLengths();
  assert.ok(all.length > 1000, `${all.length} functions measured`);
  assert.deepEqual(all.filter((f) => f.lines > longest).map(describe), [], `split these into named functions (over ${longest} lines)`);
  const overLong = all.filter((f) => f.lines > long);
  assert.ok(overLong.length <= mostLong, `${overLong.length} functions are over ${long} lines (at most ${mostLong}):\n${overLong.map(describe).join('\n')}`);
});
