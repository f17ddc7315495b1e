import type { Divergence } from "./divergence.js";
import type { RunMode } from "./run-case.js";
import type { Score } from "./scorers/scorer.js";

/** One run of one case, as a report keeps it (plain JSON). */
export interface RunResult {
  caseId: string;
  /** 0-based repeat number. */
  repeat: number;
  mode: RunMode;
  pass: boolean;
  scores: Score[];
  divergence?: Divergence;
  error?: string;
  latencyMs: number;
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
  /** Model calls. */
  iterations: number;
  /** The tool calls made, by name, in order. */
  tools: string[];
  /** The tool calls of the recording, when the case has one (for the trajectory diff). */
  recordedTools?: string[];
  /** The final answer (first 500 characters). */
  finalText: string;
}

/** Spread of one measure over runs. */
export interface Distribution {
  min: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
  values: number[];
}

export interface CaseSummary {
  caseId: string;
  description?: string;
  runs: number;
  passed: number;
  passRate: number;
  /** Some repeats passed and some failed. */
  flaky: boolean;
}

export interface ScorerSummary {
  scorer: string;
  runs: number;
  passed: number;
  passRate: number;
  meanValue: number;
}

/** The result file of one eval run (what `--compare` reads back). */
export interface EvalReport {
  format: "agentscope-eval/1";
  name: string;
  createdAt: string;
  durationMs: number;
  repeats: number;
  runs: RunResult[];
  cases: CaseSummary[];
  scorers: ScorerSummary[];
  summary: {
    runs: number;
    passed: number;
    passRate: number;
    cases: number;
    casesPassed: number;
    flaky: string[];
    latencyMs: Distribution;
    tokens: Distribution;
    costUsd?: Distribution;
  };
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

/** min, median, p95, max and mean of some values (all 0 when there are none). */
export function distribution(values: readonly number[]): Distribution {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.length ? sorted.reduce((sum, v) => sum + v, 0) / sorted.length : 0;
  return {
    min: sorted[0] ?? 0,
    p50: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    max: sorted.at(-1) ?? 0,
    mean,
    values: [...values],
  };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(key(item));
    if (list) list.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

/** Builds the summaries of a report from its runs (cases in the order given). */
export function summarize(
  runs: RunResult[],
  info: {
    name: string;
    createdAt: string;
    durationMs: number;
    repeats: number;
    descriptions?: Map<string, string>;
  },
): EvalReport {
  const byCase = groupBy(runs, (run) => run.caseId);
  const cases = [...byCase].map(([caseId, list]): CaseSummary => {
    const passed = list.filter((r) => r.pass).length;
    const summary: CaseSummary = {
      caseId,
      runs: list.length,
      passed,
      passRate: passed / list.length,
      flaky: passed > 0 && passed < list.length,
    };
    const description = info.descriptions?.get(caseId);
    if (description) summary.description = description;
    return summary;
  });
  const byScorer = groupBy(
    runs.flatMap((run) => run.scores),
    (score) => score.scorer,
  );
  const scorers = [...byScorer].map(([scorer, list]): ScorerSummary => {
    const passed = list.filter((s) => s.pass).length;
    return {
      scorer,
      runs: list.length,
      passed,
      passRate: passed / list.length,
      meanValue: list.reduce((sum, s) => sum + s.value, 0) / list.length,
    };
  });
  const passed = runs.filter((r) => r.pass).length;
  const costs = runs.flatMap((r) => (r.costUsd === undefined ? [] : [r.costUsd]));
  const report: EvalReport = {
    format: "agentscope-eval/1",
    name: info.name,
    createdAt: info.createdAt,
    durationMs: info.durationMs,
    repeats: info.repeats,
    runs,
    cases,
    scorers,
    summary: {
      runs: runs.length,
      passed,
      passRate: runs.length ? passed / runs.length : 0,
      cases: cases.length,
      casesPassed: cases.filter((c) => c.passed === c.runs).length,
      flaky: cases.filter((c) => c.flaky).map((c) => c.caseId),
      latencyMs: distribution(runs.map((r) => r.latencyMs)),
      tokens: distribution(runs.map((r) => r.inputTokens + r.outputTokens)),
    },
  };
  if (costs.length) report.summary.costUsd = distribution(costs);
  return report;
}
