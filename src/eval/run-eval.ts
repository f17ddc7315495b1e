import type { ChatModel } from "../model/index.js";
import type { EvalCase } from "./case.js";
import type { RequestPart } from "./divergence.js";
import { EvalCaseError } from "./eval-error.js";
import { type EvalReport, type RunResult, summarize } from "./report.js";
import { type AgentFactory, type CaseRun, type RunMode, runCase } from "./run-case.js";
import { costOf, type TokenPrices } from "./scorers/limits-scorer.js";
import { applyScorer, type Scorer } from "./scorers/scorer.js";
import { scorerFromSpec } from "./scorers/scorer-from-spec.js";
import { followsRecording } from "./scorers/trajectory-scorers.js";
import { toolCallsOf } from "./trajectory.js";

export interface EvalOptions {
  /** Shown in reports (default "eval"). */
  name?: string;
  cases: readonly EvalCase[];
  agent: AgentFactory;
  /** Scorers for every case, on top of each case's own `expect`. */
  scorers?: readonly Scorer[];
  /** Default: replay the cases that have a recording, run the others live. */
  mode?: RunMode;
  /** Parts of each request not compared with recordings (see firstDivergence). */
  ignore?: readonly RequestPart[];
  /** Runs at a time (default 4). */
  concurrency?: number;
  /** Runs per case, for variance (default 1). */
  repeats?: number;
  /** The judge for `rubric` expectations. */
  judge?: ChatModel;
  /** Turns usage into cost in the report and for `limits` with costUsd. */
  prices?: TokenPrices;
  /** Called after each run (a progress bar). */
  onProgress?(done: number, total: number, result: RunResult): void;
  signal?: AbortSignal;
}

const positive = (value: number | undefined, name: string, fallback: number) => {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 1) throw new EvalCaseError(`${name} must be an integer ≥ 1, got ${value}`);
  return n;
};

/** The scorers of one case: the run's, the case's expectations, or — with neither — its recording. */
function scorersFor(evalCase: EvalCase, options: EvalOptions): Scorer[] {
  const context = {
    ...(options.judge ? { judge: options.judge } : {}),
    ...(options.prices ? { prices: options.prices } : {}),
  };
  const own = (evalCase.expect ?? []).map((spec) => {
    try {
      return scorerFromSpec(spec, context);
    } catch (error) {
      throw new EvalCaseError(`case "${evalCase.id}": ${(error as Error).message}`, { cause: error });
    }
  });
  const all = [...(options.scorers ?? []), ...own];
  return all.length === 0 && evalCase.recording ? [followsRecording()] : all;
}

async function resultOf(
  evalCase: EvalCase,
  run: CaseRun,
  repeat: number,
  scorers: Scorer[],
  prices?: TokenPrices,
): Promise<RunResult> {
  const scores = await Promise.all(scorers.map((s) => applyScorer(s, { case: evalCase, run })));
  const t = run.trajectory;
  const result: RunResult = {
    caseId: evalCase.id,
    repeat,
    mode: run.mode,
    pass: run.error === undefined && scores.every((s) => s.pass),
    scores,
    latencyMs: t.latencyMs,
    inputTokens: t.usage.inputTokens,
    outputTokens: t.usage.outputTokens,
    iterations: t.turns.length,
    tools: toolCallsOf(t).map((call) => call.name),
    finalText: t.finalText.slice(0, 500),
  };
  if (evalCase.recording) result.recordedTools = toolCallsOf(evalCase.recording).map((call) => call.name);
  if (run.divergence) result.divergence = run.divergence;
  if (run.error !== undefined) result.error = run.error;
  if (prices) result.costUsd = costOf(t, prices);
  return result;
}

/**
 * Runs every case `repeats` times on the agent, `concurrency` runs at a time, scores each run and
 * returns the report (see EvalReport). A case the eval cannot start (bad expectation, no recording
 * to replay) rejects before any run.
 */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const repeats = positive(options.repeats, "repeats", 1);
  const concurrency = positive(options.concurrency, "concurrency", 4);
  const tasks = options.cases.flatMap((evalCase) => {
    const scorers = scorersFor(evalCase, options);
    if (options.mode === "replay" && !evalCase.recording)
      throw new EvalCaseError(
        `case "${evalCase.id}" has no recording to replay; run it live or record it first`,
      );
    return Array.from({ length: repeats }, (_, repeat) => ({ evalCase, repeat, scorers }));
  });
  const createdAt = new Date().toISOString();
  const started = performance.now();
  const results: RunResult[] = new Array(tasks.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let i = next++; i < tasks.length; i = next++) {
      options.signal?.throwIfAborted();
      const { evalCase, repeat, scorers } = tasks[i]!;
      const run = await runCase(evalCase, options.agent, {
        ...(options.mode ? { mode: options.mode } : {}),
        ...(options.ignore ? { ignore: options.ignore } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      results[i] = await resultOf(evalCase, run, repeat, scorers, options.prices);
      done += 1;
      options.onProgress?.(done, tasks.length, results[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, tasks.length) }, worker));
  const descriptions = new Map(
    options.cases.flatMap((c) => (c.description ? [[c.id, c.description] as const] : [])),
  );
  return summarize(results, {
    name: options.name ?? "eval",
    createdAt,
    durationMs: performance.now() - started,
    repeats,
    descriptions,
  });
}
