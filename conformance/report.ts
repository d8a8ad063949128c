/** How a result is shown: the summary table, JUnit XML, and the catalogue as Markdown. */
import { requirements } from './requirements.js';
import { checkCatalogue, type ConformanceResult } from './run.js';
import { replayLine } from './http/client.js';

/** The per-requirement table and the totals, as text for a terminal. */
export function renderSummary(result: ConformanceResult): string {
  const lines: string[] = [];
  const width = Math.max(...result.requirements.map((r) => r.id.length));
  for (const r of result.requirements) {
    const mark = r.status === 'passed' ? 'PASS' : r.status === 'failed' ? 'FAIL' : r.status === 'not certified' ? 'N/C ' : 'N/A ';
    lines.push(`${mark}  ${r.id.padEnd(width)}  ${r.status === 'passed' ? '' : r.reason ?? (r.evidence ? `expected ${r.evidence.expected}` : '')}`.trimEnd());
  }
  const failed = result.requirements.filter((r) => r.status === 'failed');
  if (failed.length > 0) {
    lines.push('', 'Failures:');
    for (const r of failed) {
      const e = r.evidence!;
      lines.push(``, `${r.id} (${r.source}): ${r.rule}`, `  check:    ${e.check}`, `  expected: ${e.expected}`);
      if (e.request) lines.push(`  request:  ${replayLine({ request: e.request })}`);
      if (e.got) lines.push(`  got:      ${e.got.status} ${truncate(JSON.stringify(e.got.body), 400)}`);
      if (e.replay) lines.push('  replay (the shrunk sequence, one call a line):', ...e.replay.map((line) => `    ${line}`));
    }
  }
  const s = result.summary;
  lines.push(
    '',
    `requirements: ${s.passed} passed, ${s.failed} failed, ${s.notCertified} not certified, ${s.notChecked} not checked (of ${result.requirements.length})`,
    `suite ${result.suiteVersion}, contract ${result.contractVersion}, seed ${result.seed}, ${result.runs} model run(s), ${(result.durationMs / 1000).toFixed(1)} s` +
      (result.rateLimited.times > 0 ? `; waited out ${result.rateLimited.times} rate limit(s) for ${Math.round(result.rateLimited.waitedMs / 1000)} s` : ''),
    result.ok ? `CERTIFIED: every certified requirement passed (${s.passed}).` : `NOT CERTIFIED: ${s.failed} requirement(s) failed.`,
  );
  return lines.join('\n');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One testcase per requirement: failed ones as failures, not certified and not checked as skipped. */
export function renderJunit(result: ConformanceResult): string {
  const s = result.summary;
  const cases = result.requirements.map((r) => {
    const head = `  <testcase classname="marketkit.conformance" name="${xml(r.id)}">`;
    if (r.status === 'passed') return `${head}</testcase>`;
    if (r.status === 'failed') {
      const e = r.evidence!;
      const body = [`check: ${e.check}`, `expected: ${e.expected}`, e.request ? `request: ${replayLine({ request: e.request })}` : '', e.got ? `got: ${e.got.status} ${JSON.stringify(e.got.body)}` : '', ...(e.replay ?? [])]
        .filter(Boolean)
        .join('\n');
      return `${head}\n    <failure message="${xml(`expected ${e.expected}`)}">${xml(body)}</failure>\n  </testcase>`;
    }
    return `${head}\n    <skipped message="${xml(`${r.status}: ${r.reason ?? ''}`)}"/>\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="marketkit conformance ${xml(result.suiteVersion)}" tests="${result.requirements.length}" failures="${s.failed}" skipped="${s.notCertified + s.notChecked}" time="${(result.durationMs / 1000).toFixed(3)}">`,
    `  <properties><property name="seed" value="${result.seed}"/><property name="contractVersion" value="${xml(result.contractVersion)}"/><property name="baseUrl" value="${xml(result.baseUrl)}"/></properties>`,
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}

/** The catalogue as the Markdown table of docs/conformance.md. */
export function renderCatalogue(): string {
  const checks = checkCatalogue();
  const rows = requirements.map((r) => {
    const covering = checks.filter((check) => check.requirements.includes(r.id));
    const needs = [...new Set(covering.flatMap((check) => check.needs ?? []))];
    const by = covering.length > 0 ? covering.map((check) => `\`${check.id}\``).join(', ') : `not checked: ${r.notChecked ?? 'no check yet'}`;
    return `| \`${r.id}\` | ${r.source} | ${r.rule.replace(/\|/g, '\\|')} | ${by}${needs.length > 0 ? ` (fixtures: ${needs.join(', ')})` : ''} |`;
  });
  return ['| id | source | rule | checked by |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
