import { toolCallsOf } from "../trajectory.js";
import type { Scorer, ScorerOptions } from "./scorer.js";

/** `*` stands for any one call, `**` for any run of calls (none too); other items name a tool. */
export type TrajectoryPattern = readonly string[];

/** Whether the tool names match the pattern from first to last (see TrajectoryPattern). */
export function matchesTrajectory(names: readonly string[], pattern: TrajectoryPattern): boolean {
  // memo[i][j]: names[i..] matches pattern[j..]
  const memo = new Map<number, boolean>();
  const match = (i: number, j: number): boolean => {
    const key = i * (pattern.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (j === pattern.length) result = i === names.length;
    else if (pattern[j] === "**") result = match(i, j + 1) || (i < names.length && match(i + 1, j));
    else result = i < names.length && (pattern[j] === "*" || pattern[j] === names[i]) && match(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return match(0, 0);
}

/** Passes when the sequence of tool calls matches the pattern (`*` any one call, `**` any run). */
export function trajectoryMatches(pattern: TrajectoryPattern, options: ScorerOptions = {}): Scorer {
  return {
    name: `trajectory:${pattern.join(",")}`,
    ...options,
    score({ run }) {
      const names = toolCallsOf(run.trajectory).map((call) => call.name);
      return matchesTrajectory(names, pattern)
        ? { value: 1, reason: `calls ${names.join(" → ") || "(none)"} match` }
        : { value: 0, reason: `calls ${names.join(" → ") || "(none)"} do not match ${pattern.join(" → ")}` };
    },
  };
}

/** Passes when the run followed its case's recording to the end (replay or live); says where it left it. */
export function followsRecording(options: ScorerOptions = {}): Scorer {
  return {
    name: "follows_recording",
    ...options,
    score({ case: evalCase, run }) {
      if (!evalCase.recording) return { value: 0, reason: "the case has no recording to follow" };
      return run.divergence
        ? { value: 0, reason: run.divergence.message, details: run.divergence }
        : { value: 1, reason: "the run follows the recording" };
    },
  };
}
