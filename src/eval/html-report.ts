import type { ReportComparison } from "./compare.js";
import type { EvalReport, RunResult } from "./report.js";
import { barChart, esc, histogram, rateColor } from "./svg-charts.js";

const pct = (value: number) => `${Math.round(value * 100)}%`;
const signed = (value: number, digits = 0) => `${value >= 0 ? "+" : ""}${(value * 100).toFixed(digits)}`;

const STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1b1b1b;background:#fafafa}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.muted{color:#595959}.tiles{display:flex;gap:12px;flex-wrap:wrap;margin:16px 0}
.tile{background:#fff;border:1px solid #ddd;border-radius:8px;padding:10px 16px;min-width:120px}
.tile b{display:block;font-size:24px}
figure{background:#fff;border:1px solid #ddd;border-radius:8px;margin:0 0 12px;padding:10px;overflow-x:auto}
figcaption{font-weight:600;margin-bottom:6px}.charts{display:grid;grid-template-columns:1fr 1fr;gap:12px}
svg .label,svg .value,svg .tick{font-size:12px;fill:#1b1b1b}svg .track{fill:#eee}svg .bin{fill:#1565c0}svg .axis{stroke:#777}
table{border-collapse:collapse;width:100%;background:#fff}th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
.pass{color:#1b5e20}.fail{color:#b71c1c}.failure{background:#fff;border:1px solid #e0b4b4;border-radius:8px;padding:10px 14px;margin-bottom:10px}
.diff{display:grid;grid-template-columns:1fr 1fr;gap:8px}.diff ol{margin:4px 0;padding-left:22px;font-family:ui-monospace,monospace}
.diff li.off{background:#ffebee;color:#b71c1c;font-weight:600}code{font-family:ui-monospace,monospace}
`;

function tiles(report: EvalReport): string {
  const s = report.summary;
  const items = [
    ["pass rate", pct(s.passRate)],
    ["runs passed", `${s.passed}/${s.runs}`],
    ["cases passed", `${s.casesPassed}/${s.cases}`],
    ["flaky cases", String(s.flaky.length)],
    ["p50 latency", `${s.latencyMs.p50.toFixed(0)} ms`],
    ["mean tokens", s.tokens.mean.toFixed(0)],
    ...(s.costUsd ? [["total cost", `$${s.costUsd.values.reduce((a, b) => a + b, 0).toFixed(4)}`]] : []),
  ];
  return `<div class="tiles">${items.map(([k, v]) => `<div class="tile"><span class="muted">${esc(k!)}</span><b>${esc(v!)}</b></div>`).join("")}</div>`;
}

/** Tool sequences of the recording and the run side by side, the first differing call marked. */
function trajectoryDiff(run: RunResult): string {
  if (!run.recordedTools) return "";
  const expected = run.recordedTools;
  const actual = run.tools;
  let first = expected.findIndex((name, i) => actual[i] !== name);
  if (first < 0 && actual.length > expected.length) first = expected.length;
  const list = (names: string[]) =>
    names.length === 0
      ? '<p class="muted">no tool calls</p>'
      : `<ol>${names.map((name, i) => `<li${i === first ? ' class="off"' : ""}>${esc(name)}</li>`).join("")}</ol>`;
  return `<div class="diff"><div><b>recorded</b>${list(expected)}</div><div><b>this run</b>${list(actual)}</div></div>`;
}

function failure(run: RunResult, repeats: number): string {
  const name = repeats > 1 ? `${run.caseId} [${run.repeat + 1}/${repeats}]` : run.caseId;
  const lines = [
    run.error !== undefined ? `<p class="fail">error: ${esc(run.error)}</p>` : "",
    run.divergence ? `<p>divergence: <code>${esc(run.divergence.message)}</code></p>` : "",
    `<ul>${run.scores
      .filter((s) => !s.pass)
      .map((s) => `<li><b>${esc(s.scorer)}</b> ${s.value.toFixed(2)}: ${esc(s.reason)}</li>`)
      .join("")}</ul>`,
    trajectoryDiff(run),
  ];
  return `<section class="failure" data-case="${esc(run.caseId)}"><h3>${esc(name)}</h3>${lines.join("")}</section>`;
}

function comparisonSection(comparison: ReportComparison): string {
  const row = (
    label: string,
    d: { base: number; head: number; delta: number; ci95: [number, number]; significant: boolean },
  ) =>
    `<tr><td>${esc(label)}</td><td>${pct(d.base)}</td><td>${pct(d.head)}</td><td class="${d.delta < 0 ? "fail" : d.delta > 0 ? "pass" : ""}">${signed(d.delta)} pts</td><td>${signed(d.ci95[0])} to ${signed(d.ci95[1])}</td><td>${d.significant ? "yes" : "no"}</td></tr>`;
  const bars = comparison.scorers.flatMap((s) => [
    { label: `${s.scorer} (A)`, value: s.base, color: "#90a4ae" },
    { label: `${s.scorer} (B)`, value: s.head, color: rateColor(s.head) },
  ]);
  const changed = comparison.cases.filter((c) => c.change !== "same");
  return [
    `<h2>Comparison: A = ${esc(comparison.base)}, B = ${esc(comparison.head)}</h2>`,
    `<table><thead><tr><th>measure</th><th>A</th><th>B</th><th>delta</th><th>95% interval</th><th>significant</th></tr></thead><tbody>`,
    row("pass rate", comparison.passRate),
    ...comparison.scorers.map((s) => row(s.scorer, s)),
    "</tbody></table>",
    `<p class="muted">p50 latency ${comparison.latencyP50Ms.base.toFixed(0)} → ${comparison.latencyP50Ms.head.toFixed(0)} ms; mean tokens ${comparison.meanTokens.base.toFixed(0)} → ${comparison.meanTokens.head.toFixed(0)}</p>`,
    barChart("Pass rate per scorer, A and B", bars),
    changed.length
      ? `<table><thead><tr><th>case</th><th>A</th><th>B</th><th>change</th></tr></thead><tbody>${changed
          .map(
            (c) =>
              `<tr><td>${esc(c.caseId)}</td><td>${c.base === undefined ? "–" : pct(c.base)}</td><td>${c.head === undefined ? "–" : pct(c.head)}</td><td class="${c.change === "regressed" || c.change === "worse" ? "fail" : "pass"}">${c.change}</td></tr>`,
          )
          .join("")}</tbody></table>`
      : "<p>No case changed.</p>",
  ].join("\n");
}

/**
 * The report as one self-contained HTML page (inline CSS and SVG, no scripts, nothing fetched):
 * pass rate per scorer and per case, latency and token distributions, flaky cases, each failure
 * with its divergence and trajectory diff, and the A/B comparison when given.
 */
export function htmlReport(report: EvalReport, comparison?: ReportComparison): string {
  const failures = report.runs.filter((run) => !run.pass);
  const flaky = report.cases.filter((c) => c.flaky);
  const costs = report.summary.costUsd;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Eval report: ${esc(report.name)}</title><style>${STYLE}</style></head>
<body><main>
<h1>Eval report: ${esc(report.name)}</h1>
<p class="muted">${esc(report.createdAt)} · ${report.summary.cases} cases × ${report.repeats} repeat(s) · ${(report.durationMs / 1000).toFixed(2)} s</p>
${tiles(report)}
<h2>Pass rates</h2>
<div class="charts">
${barChart(
  "Pass rate per scorer",
  report.scorers.map((s) => ({ label: s.scorer, value: s.passRate })),
)}
${barChart(
  "Pass rate per case",
  report.cases.map((c) => ({
    label: c.caseId,
    value: c.passRate,
    note: `${pct(c.passRate)}${c.flaky ? " flaky" : ""}`,
  })),
)}
</div>
<h2>Distributions</h2>
<div class="charts">
${histogram("Latency per run", report.summary.latencyMs.values, "ms")}
${costs ? histogram("Cost per run", costs.values, "USD") : histogram("Tokens per run", report.summary.tokens.values, "tokens")}
</div>
<h2>Flaky cases</h2>
${flaky.length ? `<ul>${flaky.map((c) => `<li>${esc(c.caseId)}: ${c.passed}/${c.runs} passed</li>`).join("")}</ul>` : "<p>None.</p>"}
<h2>Failures (${failures.length})</h2>
${failures.length ? failures.map((run) => failure(run, report.repeats)).join("\n") : "<p>None: every run passed.</p>"}
${comparison ? comparisonSection(comparison) : ""}
</main></body></html>
`;
}
