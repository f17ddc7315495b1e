import type { EvalCase } from "../case.js";
import type { CaseRun } from "../run-case.js";

/** What a scorer looks at: the case and one run of it. */
export interface ScoreInput {
  case: EvalCase;
  run: CaseRun;
}

/** A scorer's verdict on one run. `value` is 0 to 1; `pass` defaults to value ≥ the threshold. */
export interface ScoreResult {
  value: number;
  reason: string;
  pass?: boolean;
  /** Anything worth keeping in the report (a judge's reasoning, sub-scores). */
  details?: unknown;
}

/** A named verdict as reports keep it. */
export interface Score {
  scorer: string;
  value: number;
  pass: boolean;
  reason: string;
  weight: number;
  details?: unknown;
}

/**
 * Scores a run. Must not throw for a run it dislikes (return value 0 and say why); a throw is
 * reported as a failed score naming the error. `weight` counts in compositions (default 1);
 * `threshold` is the value a pass needs (default 1: deterministic scorers pass or fail).
 */
export interface Scorer {
  name: string;
  weight?: number;
  threshold?: number;
  score(input: ScoreInput): ScoreResult | Promise<ScoreResult>;
}

export interface ScorerOptions {
  weight?: number;
  threshold?: number;
}

/** A custom scorer from a function returning a boolean, a number (0 to 1) or a ScoreResult. */
export function scorer(
  name: string,
  fn: (input: ScoreInput) => boolean | number | ScoreResult | Promise<boolean | number | ScoreResult>,
  options: ScorerOptions = {},
): Scorer {
  return {
    name,
    ...options,
    async score(input) {
      const result = await fn(input);
      if (typeof result === "boolean") return { value: result ? 1 : 0, reason: result ? "passed" : "failed" };
      if (typeof result === "number") return { value: result, reason: `scored ${result}` };
      return result;
    },
  };
}

const clamp = (value: number) => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/** Runs a scorer on one run; a throw becomes a failed score whose reason names the error. */
export async function applyScorer(s: Scorer, input: ScoreInput): Promise<Score> {
  const weight = s.weight ?? 1;
  try {
    const result = await s.score(input);
    const value = clamp(result.value);
    const score: Score = {
      scorer: s.name,
      value,
      pass: result.pass ?? value >= (s.threshold ?? 1),
      reason: result.reason,
      weight,
    };
    if (result.details !== undefined) score.details = result.details;
    return score;
  } catch (error) {
    return {
      scorer: s.name,
      value: 0,
      pass: false,
      reason: `scorer failed: ${(error as Error)?.message ?? error}`,
      weight,
    };
  }
}

/**
 * Scorers composed into one: the weighted mean of their values (each scorer's `weight`, default 1),
 * passing when it reaches `threshold` (default 1: every part must score full marks). The parts'
 * scores are kept in `details`.
 */
export function weighted(name: string, parts: readonly Scorer[], options: ScorerOptions = {}): Scorer {
  return {
    name,
    ...options,
    async score(input) {
      const scores = await Promise.all(parts.map((part) => applyScorer(part, input)));
      const total = scores.reduce((sum, s) => sum + s.weight, 0);
      const value = total === 0 ? 0 : scores.reduce((sum, s) => sum + s.value * s.weight, 0) / total;
      const failed = scores.filter((s) => !s.pass);
      return {
        value,
        reason:
          failed.length === 0
            ? "every part passed"
            : failed.map((s) => `${s.scorer}: ${s.reason}`).join("; "),
        details: scores,
      };
    },
  };
}
