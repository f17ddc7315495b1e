import type { EvalCase } from "./case.js";
import type { CaseRun } from "./run-case.js";

/**
 * The case with a run as its recording (every request, answer, decision and result the run saw):
 * record a live run once, then replay it deterministically as a regression test.
 */
export function caseFromRun(evalCase: EvalCase, run: CaseRun): EvalCase {
  return { ...evalCase, recording: { turns: structuredClone(run.trajectory.turns) } };
}
