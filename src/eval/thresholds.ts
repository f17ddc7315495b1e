import type { ReportComparison } from "./compare.js";
import type { EvalReport } from "./report.js";

/** What a CI run requires; each given one is checked. */
export interface Thresholds {
  /** The share of runs that must pass (0 to 1). */
  minPassRate?: number;
  /** With a comparison: how far the pass rate may fall below the base (0 to 1). */
  maxDrop?: number;
  /** Fail when a case passes in some repeats and fails in others. */
  failOnFlaky?: boolean;
}

/** The thresholds the report misses, one sentence each; empty when it meets them all. */
export function missedThresholds(
  report: EvalReport,
  thresholds: Thresholds,
  comparison?: ReportComparison,
): string[] {
  const missed: string[] = [];
  const rate = report.summary.passRate;
  if (thresholds.minPassRate !== undefined && rate < thresholds.minPassRate) {
    missed.push(`pass rate ${pct(rate)} is below the minimum ${pct(thresholds.minPassRate)}`);
  }
  if (thresholds.maxDrop !== undefined && comparison && -comparison.passRate.delta > thresholds.maxDrop) {
    missed.push(
      `pass rate fell ${pct(-comparison.passRate.delta)} (from ${pct(comparison.passRate.base)} to ${pct(comparison.passRate.head)}), more than the allowed ${pct(thresholds.maxDrop)}`,
    );
  }
  if (thresholds.failOnFlaky && report.summary.flaky.length > 0) {
    missed.push(`flaky cases: ${report.summary.flaky.join(", ")}`);
  }
  return missed;
}

function pct(value: number): string {
  return `${Number((value * 100).toFixed(1))}%`;
}
