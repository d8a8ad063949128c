// Two rules of issue 45, point 6, read from the sources' syntax (test/core/one-source-of-statuses.test.ts
// holds them; run alone, `node scripts/error-rules.mjs` lists what breaks them and counts the rest):
//
// - One source of statuses: core/errors.ts is the one table of error codes and their HTTP statuses.
//   Elsewhere in core/ and bindings/ an error status (400 to 599) is read from it (statusOf('NOT_FOUND'),
//   a refusal's `.status`), never written as a number where a status goes: a `status` property or
//   variable, an equality with a status, an argument of a response or refusal, a key of an OpenAPI
//   `responses`, a raw `HTTP/1.1 4xx` line. Relational comparisons (`status >= 500`) are HTTP's
//   classes, not a code, and stay.
// - No error swallowed without a reason: a `catch` (or a `.catch`/`.then` rejection handler, given
//   inline or by the name of the file's own `const noop = () => {}`) that drops the error (it names
//   none, or never reads it, and does nothing but return a constant, continue or break) has a
//   comment saying why that is safe: on its line or the line before, on the handler's first line or
//   the one before, or inside it; one comment serves catches on consecutive lines. A handler that
//   reports the error (to onError, a logger) or acts on the failure drops nothing.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Everything shipped or run, not test/ (nor bench/, docs/examples): where no error is swallowed without a reason. */
export const catchFolders = ['core', 'adapters', 'bindings', 'cli', 'client', 'testing', 'conformance', 'soak', 'scripts'];
/** Where statuses are answered: core/ and the bindings (their client helpers read a server's statuses, they answer none). */
export const statusFolders = ['core', 'bindings'];
const statusExempt = ['core/errors.ts', 'bindings/node/client/'];

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
    return /\.(ts|mts|mjs|js)$/.test(name) && !/\.d\.m?ts$/.test(name) ? [path] : [];
  });
}

function parse(file, text) {
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, /\.m?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS);
}

const lineOf = (source, pos) => source.getLineAndCharacterOfPosition(pos).line + 1;

/** The lines every comment of the file spans. */
function commentLines(source) {
  const text = source.getFullText();
  const lines = new Set();
  const seen = new Set();
  const note = (ranges) => {
    for (const range of ranges ?? []) {
      if (seen.has(range.pos)) continue;
      seen.add(range.pos);
      for (let line = lineOf(source, range.pos); line <= lineOf(source, range.end); line++) lines.add(line);
    }
  };
  const visit = (node) => {
    note(ts.getLeadingCommentRanges(text, node.pos));
    note(ts.getTrailingCommentRanges(text, node.end));
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  return lines;
}

/** A value that says nothing of the error: undefined, null, a boolean, a number, a string, [] or {}, void 0. */
function isConstant(node) {
  if (!node) return true;
  while (ts.isParenthesizedExpression(node) || ts.isAsExpression(node)) node = node.expression;
  if (ts.isIdentifier(node)) return node.text === 'undefined';
  if (ts.isVoidExpression(node)) return ts.isNumericLiteral(node.expression);
  if (ts.isArrayLiteralExpression(node)) return node.elements.length === 0;
  if (ts.isObjectLiteralExpression(node)) return node.properties.length === 0;
  return [ts.SyntaxKind.NullKeyword, ts.SyntaxKind.TrueKeyword, ts.SyntaxKind.FalseKeyword].includes(node.kind) || ts.isNumericLiteral(node) || ts.isStringLiteral(node);
}

/** A block or body that does nothing with a failure: empty, or returns a constant, continues or breaks. */
function isInert(body) {
  if (!ts.isBlock(body)) return isConstant(body);
  return body.statements.every((s) => ts.isEmptyStatement(s) || ts.isContinueStatement(s) || ts.isBreakStatement(s) || (ts.isReturnStatement(s) && isConstant(s.expression)));
}

function reads(body, name) {
  let found = false;
  const visit = (node) => {
    if (found) return;
    if (ts.isIdentifier(node) && node.text === name) found = true;
    else ts.forEachChild(node, visit);
  };
  visit(body);
  return found;
}

/** Whether a handler drops the error it is given: it names none or never reads it, and its body is inert. */
function drops(parameter, body) {
  if (parameter && (!ts.isIdentifier(parameter.name) || reads(body, parameter.name.text))) return false;
  return isInert(body);
}

/** Every catch of a file that drops its error: where, and whether a comment gives the reason. */
export function swallowedIn(file, text) {
  const source = parse(file, text);
  // Read only for a file with a catch to judge: walking every token is most of the rule's time.
  let comments;
  const commented = (line) => (comments ??= commentLines(source)).has(line);
  const found = [];
  const record = (keywordPos, handler) => {
    const line = lineOf(source, keywordPos);
    // On the catch's line or the one before, on the handler's first line or the one before, or inside it.
    let reason = commented(line) || commented(line - 1);
    for (let at = lineOf(source, handler.getStart(source)) - 1; !reason && at <= lineOf(source, handler.end); at++) reason = commented(at);
    found.push({ file, line, code: handler.getText(source).split('\n')[0].slice(0, 60), reason });
  };
  const dropping = (handler) => (ts.isArrowFunction(handler) || ts.isFunctionExpression(handler)) && handler.parameters.length <= 1 && drops(handler.parameters[0], handler.body);
  // Handlers given by name (`const noop = () => {}`, then `.catch(noop)`): the file's own that drop.
  const named = new Set();
  const collect = (node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && dropping(node.initializer)) named.add(node.name.text);
    ts.forEachChild(node, collect);
  };
  collect(source);
  const visit = (node) => {
    if (ts.isCatchClause(node) && drops(node.variableDeclaration, node.block)) record(node.getStart(source), node);
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const handler = method === 'catch' ? node.arguments[0] : method === 'then' ? node.arguments[1] : undefined;
      if (handler && (dropping(handler) || (ts.isIdentifier(handler) && named.has(handler.text)))) record(node.expression.name.getStart(source), handler);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // One comment may give the reason for a run of catches on consecutive lines.
  found.sort((a, b) => a.line - b.line);
  for (let i = 1; i < found.length; i++) found[i].reason ||= found[i - 1].reason && found[i - 1].line >= found[i].line - 1;
  return found;
}

const statusName = /status/i;
const answering = /response|refusal|writehead|status/i;
const isErrorStatus = (value) => value >= 400 && value <= 599;

/** Where a number stands: the expression around it once conditionals, `??`/`||`, arrays and arrow bodies are looked through. */
function placeOf(node) {
  let at = node;
  for (;;) {
    const parent = at.parent;
    const through =
      ts.isParenthesizedExpression(parent) || ts.isConditionalExpression(parent) || ts.isArrayLiteralExpression(parent) || ts.isAsExpression(parent) ||
      (ts.isArrowFunction(parent) && parent.body === at) || (ts.isBinaryExpression(parent) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(parent.operatorToken.kind)) ||
      ((ts.isNewExpression(parent) || ts.isCallExpression(parent)) && /^(Set|Map|Array)$/.test(parent.expression.getText()));
    if (!through) return { at, parent };
    at = parent;
  }
}

function standsForStatus(literal) {
  const { at, parent } = placeOf(literal);
  if (ts.isPropertyAssignment(parent)) return (parent.initializer === at && statusName.test(parent.name.getText())) || parent.name === literal;
  if (ts.isVariableDeclaration(parent) || ts.isParameter(parent) || ts.isPropertyDeclaration(parent)) return statusName.test(parent.name.getText());
  if (ts.isBinaryExpression(parent) && /^[!=]==?$/.test(parent.operatorToken.getText())) return statusName.test((parent.left === at ? parent.right : parent.left).getText());
  if ((ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.arguments?.includes(at)) return answering.test(parent.expression.getText());
  if (ts.isLiteralTypeNode(parent)) return true;
  return false;
}

/** Every error status written as a literal where a status goes, in a file of core/ or bindings/. */
export function literalStatusesIn(file, text) {
  const source = parse(file, text);
  const found = [];
  const visit = (node) => {
    const value = ts.isNumericLiteral(node) ? Number(node.text) : ts.isStringLiteral(node) && /^\d{3}$/.test(node.text) ? Number(node.text) : NaN;
    const raw = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? /^HTTP\/1\.1 ([45]\d\d)/.exec(node.text) : null;
    if ((isErrorStatus(value) && standsForStatus(node)) || raw) {
      found.push({ file, line: lineOf(source, node.getStart(source)), code: node.parent.getText(source).split('\n')[0].slice(0, 80) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function scan(base, folders, each, exempt = []) {
  const all = [];
  for (const folder of folders) {
    for (const path of sources(join(base, folder))) {
      const file = relative(base, path);
      if (!exempt.some((prefix) => file.startsWith(prefix))) all.push(...each(file, readFileSync(path, 'utf8')));
    }
  }
  return all;
}

/** Every catch that drops its error, in the folders of shipped and run code. */
export const swallowedErrors = (base = root) => scan(base, catchFolders, swallowedIn);
/** Every literal error status outside the table, in core/ and bindings/. */
export const literalStatuses = (base = root) => scan(base, statusFolders, literalStatusesIn, statusExempt);

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const base = process.argv[2] ?? root;
  const swallowed = swallowedErrors(base);
  const unexplained = swallowed.filter((s) => !s.reason);
  const statuses = literalStatuses(base);
  for (const s of unexplained) console.log(`no reason  ${s.file}:${s.line}  ${s.code}`);
  for (const s of statuses) console.log(`status     ${s.file}:${s.line}  ${s.code}`);
  console.log(`${swallowed.length} catches drop their error, ${unexplained.length} without a reason; ${statuses.length} literal error statuses`);
}
