import type { EvalRunDetail, EvalRunList } from "../eval-types.js";
import { answer, type Route } from "../route.js";

/** Eval runs and their reports, read from the directory `agentscope eval` wrote them to (docs/evals.md). */
export const EVAL_ROUTES = {
  listEvalRuns: {
    method: "GET",
    path: "/v1/evals/runs",
    summary: "The eval runs whose reports the service serves (config `evals.reports`), newest first",
    auth: "bearer",
    answer: answer<EvalRunList>(200, "`{ runs, truncated, hint? }` (empty with a hint without `evals`)"),
  },
  getEvalRun: {
    method: "GET",
    path: "/v1/evals/runs/{id}",
    summary: "One eval run's report (its id from the list)",
    auth: "bearer",
    answer: answer<EvalRunDetail>(200, "`{ run, report }`: the result.json `agentscope eval` wrote"),
  },
} as const satisfies Record<string, Route>;
