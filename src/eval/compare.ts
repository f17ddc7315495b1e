import type { EvalReport } from "./report.js";

/** A change in a pass rate between two runs, with a 95% confidence interval for the difference. */
export interface RateDelta {
  base: number;
  head: number;
  delta: number;
  /** Agresti–Caffo interval for head − base (one success and one failure added to each side). */
  ci95: [number, number];
  /** The interval excludes 0. */
  significant: boolean;
}

export type CaseChange = "fixed" | "regressed" | "better" | "worse" | "same" | "new" | "removed";

export interface ReportComparison {
  base: string;
  head: string;
  passRate: RateDelta;
  scorers: Array<RateDelta & { scorer: string }>;
  cases: Array<{ caseId: string; base?: number; head?: number; change: CaseChange }>;
  latencyP50Ms: { base: number; head: number; delta: number };
  meanTokens: { base: number; head: number; delta: number };
}

/** The difference of two pass rates (passes of runs on each side) and its 95% interval. */
export function rateDelta(
  basePassed: number,
  baseRuns: number,
  headPassed: number,
  headRuns: number,
): RateDelta {
  const base = baseRuns ? basePassed / baseRuns : 0;
  const head = headRuns ? headPassed / headRuns : 0;
  const pb = (basePassed + 1) / (baseRuns + 2);
  const ph = (headPassed + 1) / (headRuns + 2);
  const adjusted = ph - pb;
  const se = Math.sqrt((pb * (1 - pb)) / (baseRuns + 2) + (ph * (1 - ph)) / (headRuns + 2));
  const ci95: [number, number] = [Math.max(-1, adjusted - 1.96 * se), Math.min(1, adjusted + 1.96 * se)];
  return { base, head, delta: head - base, ci95, significant: ci95[0] > 0 || ci95[1] < 0 };
}

function changeOf(base: number | undefined, head: number | undefined): CaseChange {
  if (base === undefined) return "new";
  if (head === undefined) return "removed";
  if (base < 1 && head === 1) return "fixed";
  if (base === 1 && head < 1) return "regressed";
  return head > base ? "better" : head < base ? "worse" : "same";
}

const span = (base: number, head: number) => ({ base, head, delta: head - base });

/** Puts two eval runs side by side (A/B: a model, prompt or tool change): the deltas and their confidence. */
export function compareReports(base: EvalReport, head: EvalReport): ReportComparison {
  const scorerNames = [...new Set([...base.scorers, ...head.scorers].map((s) => s.scorer))];
  const scorers = scorerNames.map((scorer) => {
    const a = base.scorers.find((s) => s.scorer === scorer);
    const b = head.scorers.find((s) => s.scorer === scorer);
    return { scorer, ...rateDelta(a?.passed ?? 0, a?.runs ?? 0, b?.passed ?? 0, b?.runs ?? 0) };
  });
  const caseIds = [...new Set([...base.cases, ...head.cases].map((c) => c.caseId))];
  const cases = caseIds.map((caseId) => {
    const a = base.cases.find((c) => c.caseId === caseId)?.passRate;
    const b = head.cases.find((c) => c.caseId === caseId)?.passRate;
    return {
      caseId,
      ...(a !== undefined ? { base: a } : {}),
      ...(b !== undefined ? { head: b } : {}),
      change: changeOf(a, b),
    };
  });
  return {
    base: base.name,
    head: head.name,
    passRate: rateDelta(base.summary.passed, base.summary.runs, head.summary.passed, head.summary.runs),
    scorers,
    cases,
    latencyP50Ms: span(base.summary.latencyMs.p50, head.summary.latencyMs.p50),
    meanTokens: span(base.summary.tokens.mean, head.summary.tokens.mean),
  };
}
