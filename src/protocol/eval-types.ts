/** One eval run the service serves: a result.json `agentscope eval` wrote under the config's `evals.reports`. */
export interface EvalRunInfo {
  /** The report's entry in the reports directory (a directory holding result.json, or a .json file). */
  id: string;
  name: string;
  /** When the eval ran (the report's `createdAt`). */
  createdAt: string;
  durationMs: number;
  /** Runs (cases × repeats), how many passed and failed. */
  runs: number;
  passed: number;
  failed: number;
  cases: number;
  casesPassed: number;
}

/** GET /v1/evals/runs: the runs newest first; `hint` says how to get some when there are none. */
export interface EvalRunList {
  runs: EvalRunInfo[];
  /** More reports than the list holds were found (the newest are listed). */
  truncated: boolean;
  /** Why the list is empty and how to fill it (no `evals` in the config, or no reports yet). */
  hint?: string;
}

/** A scorer's verdict on one run, as the report keeps it. */
export interface EvalRunScore {
  scorer: string;
  value: number;
  pass: boolean;
  reason: string;
}

/** One run of one case in a report. */
export interface EvalCaseRun {
  caseId: string;
  repeat: number;
  mode: string;
  pass: boolean;
  scores: EvalRunScore[];
  /** Why the run could not finish. */
  error?: string;
  /** Where a replay left its recording. */
  divergence?: { turn: number; kind: string; path: string; message: string };
  latencyMs: number;
  tools: string[];
  finalText: string;
}

/** The report of one eval run (the result.json format `agentscope-eval/1`, the fields the studio reads). */
export interface EvalReportBody {
  format: string;
  name: string;
  createdAt: string;
  durationMs: number;
  repeats: number;
  runs: EvalCaseRun[];
  cases: Array<{ caseId: string; description?: string; runs: number; passed: number; flaky: boolean }>;
  scorers: Array<{ scorer: string; runs: number; passed: number; passRate: number }>;
}

/** GET /v1/evals/runs/{id}: the run's facts and its whole report. */
export interface EvalRunDetail {
  run: EvalRunInfo;
  report: EvalReportBody;
}
