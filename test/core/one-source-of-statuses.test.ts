/**
 * One source of statuses, and no error swallowed without a reason (issue 45, point 6):
 * core/errors.ts is the one table of error codes and their HTTP statuses, so core/ and bindings/
 * read an error's status from it (statusOf('NOT_FOUND'), a refusal's `.status`) and never write
 * one as a number; and a catch that drops its error, anywhere in the code that ships or runs,
 * says why on its line or the one before (or reports the error instead). scripts/error-rules.mjs
 * reads both from the syntax; `node scripts/error-rules.mjs` lists what breaks them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { catchFolders, literalStatuses, literalStatusesIn, statusFolders, swallowedErrors, swallowedIn } from '../../scripts/error-rules.mjs';

const where = (found: { file: string; line: number; code: string }) => `${found.file}:${found.line} ${found.code}`;

test('the status rule finds an error status written where a status goes, and leaves success statuses and other numbers alone', () => {
  const text = [
    "return jsonResponse(503, body, headers);",
    "const answer = { status: 429, body: null };",
    "if (answer.status === 401) refuse();",
    "let status = 500;",
    "const keptStatuses = new Set([404, 409]);",
    "const responses = { '503': degraded };",
    "socket.write('HTTP/1.1 431 Request Header Fields Too Large\\r\\n\\r\\n');",
    "export function refusal(status: 400 | 431) {}",
    // Not error statuses where a status goes: success, a class boundary, lengths.
    "return jsonResponse(200, body);",
    "const failed = status >= 500;",
    "const cut = text.slice(0, 500);",
    "const limits = { descriptionMax: 500 };",
  ].join('\n');
  assert.deepEqual(
    literalStatusesIn('core/example.ts', text).map((s) => s.line),
    [1, 2, 3, 4, 5, 5, 6, 7, 8, 8],
  );
  assert.deepEqual(literalStatusesIn('core/example.ts', "return jsonResponse(statusOf('SERVICE_UNAVAILABLE'), body);"), []);
});

test('the catch rule finds a catch that drops its error without a reason, and takes a comment or a handler that uses the error', () => {
  const text = [
    'await remove(path).catch(() => {});', // 1: dropped, no reason
    'const info = await stat(file).catch(() => null);', // 2: dropped, no reason
    'try {', // 3
    '  parse(text);', // 4
    '} catch {}', // 5: dropped, no reason
    'const noop = () => {};', // 6
    'query().catch(noop);', // 7: dropped by name, no reason
    'done.then(ok, (error) => { seen = error; });', // 8: uses the error
    'job().catch(onError);', // 9: reports it
    '// Left for the sweep, which removes what no record points at.', // 10
    'await remove(path).catch(() => {});', // 11: reason on the line before
    'await removeToo(path).catch(() => {});', // 12: the same reason, the next line
    'try {', // 13
    '  parse(text);', // 14
    '} catch {', // 15
    '  // Not JSON: answered as no value.', // 16
    '  return null;', // 17
    '}', // 18
    "const url = 'https://example.com'; run().catch(() => {});", // 19: `//` in a string is no comment
  ].join('\n');
  assert.deepEqual(
    swallowedIn('core/example.ts', text).map((s) => [s.line, s.reason]),
    [
      [1, false],
      [2, false],
      [5, false],
      [7, false],
      [11, true],
      [12, true],
      [15, true],
      [19, false],
    ],
  );
});

test('no error status is written as a number in core/ or bindings/ outside the error table', () => {
  assert.deepEqual(statusFolders, ['core', 'bindings']);
  const found = literalStatuses();
  assert.deepEqual(found.map(where), [], "read these from core/errors.ts: statusOf('CODE'), or a refusal's .status");
});

test('no catch in the code that ships or runs drops its error without a reason', () => {
  assert.deepEqual(catchFolders, ['core', 'adapters', 'bindings', 'cli', 'client', 'testing', 'conformance', 'soak', 'scripts']);
  const swallowed = swallowedErrors();
  assert.ok(swallowed.length > 50, `${swallowed.length} catches that drop their error found: the rule still reads the code`);
  assert.deepEqual(
    swallowed.filter((s) => !s.reason).map(where),
    [],
    'say on the line before why dropping the error is safe, or report it (onError, the logger)',
  );
});
