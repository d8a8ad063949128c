// How long each function of the library is, in lines from its first token to its last, nested
// functions included: a factory whose methods are closures counts them all, which is what makes
// a request path hard to follow (docs/architecture.md asks for named module-level steps instead).
// Outside the test suites: test/ is not read, and in conformance/ a test's body (a suite's
// `'name': async (port) => {...}` entry, a check's `run`) counts neither as a function nor
// towards the function that registers it. test/core/function-lengths.test.ts holds the limits;
// run alone, `node scripts/function-lengths.mjs [--over 80]` prints the longest.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The folders measured: everything shipped or run, not test/ (nor bench/, docs/examples). */
export const measuredFolders = ['core', 'adapters', 'bindings', 'cli', 'client', 'testing', 'conformance', 'soak', 'scripts'];

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.(ts|mts|mjs|js)$/.test(name) && !/\.d\.m?ts$/.test(name) ? [path] : [];
  });
}

const isFunction = (node) =>
  ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node);

/** The name a reader would search for: the declaration's, else the variable or property it is assigned to. */
function nameOf(node) {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && (ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name))) return parent.name.text;
  if (parent && ts.isCallExpression(parent)) {
    const callee = parent.expression.getText();
    return `(callback of ${callee.length > 40 ? `${callee.slice(0, 40)}…` : callee})`;
  }
  return '(anonymous)';
}

/**
 * A conformance test's body: in conformance/, a function that is the value of a string-named
 * entry (a suite's `'reads back': async (port) => {}`), or the `run` of a check object (one with
 * an `id`), a model-based test command's `run` (a class's), or the body given to a runner's
 * `test(name, body)`.
 */
function isTestBody(node, file) {
  if (!file.startsWith('conformance/')) return false;
  const parent = node.parent;
  if (ts.isPropertyAssignment(parent) && ts.isStringLiteral(parent.name)) return true;
  const named = ts.isMethodDeclaration(node) ? node : ts.isPropertyAssignment(parent) ? parent : undefined;
  if (named && named.name.getText() === 'run' && ts.isObjectLiteralExpression(named.parent)) {
    return named.parent.properties.some((p) => p.name?.getText() === 'id');
  }
  if (ts.isMethodDeclaration(node) && node.name.getText() === 'run' && ts.isClassLike(parent)) return true;
  if (ts.isCallExpression(parent) && /(^|\.)test$/.test(parent.expression.getText()) && parent.arguments[1] === node) return true;
  return false;
}

/** Every function of `text` (as file `file`, relative to the root): name, line, lines. */
export function functionsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, /\.m?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const found = [];
  // Each open function's entry, so that a test body's lines come off every function around it.
  const open = [];
  const visit = (node) => {
    if (isFunction(node)) {
      const start = lineOf(node.getStart(source));
      const lines = lineOf(node.getEnd()) - start + 1;
      if (isTestBody(node, file)) {
        for (const outer of open) outer.lines -= lines;
        return; // its nested functions are the test's too
      }
      const entry = { file, name: nameOf(node), line: start, lines };
      found.push(entry);
      open.push(entry);
      ts.forEachChild(node, visit);
      open.pop();
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every function of the measured folders, longest first. */
export function functionLengths(base = root) {
  const all = [];
  for (const folder of measuredFolders) {
    for (const path of sources(join(base, folder))) all.push(...functionsOf(relative(base, path), readFileSync(path, 'utf8')));
  }
  return all.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const overAt = process.argv.indexOf('--over');
  const over = overAt >= 0 ? Number(process.argv[overAt + 1]) : 80;
  const all = functionLengths();
  const long = all.filter((f) => f.lines > over);
  for (const f of long) console.log(`${String(f.lines).padStart(4)}  ${f.name}  ${f.file}:${f.line}`);
  console.log(`${long.length} of ${all.length} functions over ${over} lines; the longest ${all[0]?.lines ?? 0}`);
}
