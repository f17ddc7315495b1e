import type { EvalReport, RunResult } from "./report.js";

// Characters XML 1.0 forbids (control characters other than tab, newline, carriage return).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters removed
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Text for an XML attribute or element: escaped, with characters XML cannot hold removed. */
export function xmlText(value: string): string {
  return value
    .replace(INVALID_XML, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testcase(run: RunResult, repeats: number, suite: string): string {
  const name = repeats > 1 ? `${run.caseId} [${run.repeat + 1}/${repeats}]` : run.caseId;
  const open = `    <testcase name="${xmlText(name)}" classname="${xmlText(suite)}" time="${seconds(run.latencyMs)}"`;
  const scores = run.scores
    .map((s) => `${s.pass ? "PASS" : "FAIL"} ${s.scorer} (${s.value.toFixed(2)}): ${s.reason}`)
    .join("\n");
  const out = scores ? `      <system-out>${xmlText(scores)}</system-out>\n` : "";
  if (run.error !== undefined) {
    return `${open}>\n      <error message="${xmlText(run.error)}" type="run_error">${xmlText(run.divergence?.message ?? run.error)}</error>\n${out}    </testcase>`;
  }
  if (!run.pass) {
    const failed = run.scores.filter((s) => !s.pass);
    const message = failed.map((s) => `${s.scorer}: ${s.reason}`).join("; ");
    const body = [run.divergence?.message, ...failed.map((s) => `${s.scorer}: ${s.reason}`)]
      .filter(Boolean)
      .join("\n");
    return `${open}>\n      <failure message="${xmlText(message)}" type="${run.divergence ? "divergence" : "score"}">${xmlText(body)}</failure>\n${out}    </testcase>`;
  }
  return out ? `${open}>\n${out}    </testcase>` : `${open}/>`;
}

/**
 * The report as JUnit XML for CI: one testsuite, one testcase per run (a repeat is named
 * `case [2/3]`); a run that failed a scorer is a failure, one that could not finish an error.
 */
export function junitXml(report: EvalReport): string {
  const failures = report.runs.filter((r) => !r.pass && r.error === undefined).length;
  const errors = report.runs.filter((r) => r.error !== undefined).length;
  const counts = `tests="${report.runs.length}" failures="${failures}" errors="${errors}" time="${seconds(report.durationMs)}"`;
  const suite = `agentscope.eval.${report.name}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlText(report.name)}" ${counts}>`,
    `  <testsuite name="${xmlText(suite)}" ${counts} skipped="0" timestamp="${report.createdAt.slice(0, 19)}">`,
    ...report.runs.map((run) => testcase(run, report.repeats, suite)),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
