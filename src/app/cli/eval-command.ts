import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  type AgentFactory,
  compareReports,
  EvalCaseError,
  type EvalOptions,
  type EvalReport,
  loadDataset,
  missedThresholds,
  type RequestPart,
  type RunMode,
  type RunResult,
  readReport,
  runEval,
  type Scorer,
  type Thresholds,
  writeReports,
} from "../../eval/index.js";
import { ValidationError } from "../../message/index.js";
import type { ChatModel } from "../../model/index.js";
import { TraceFileError } from "../../trace/index.js";
import { CliError } from "./cli-error.js";

export const EVAL_HELP = `Usage: agentscope eval <dataset.jsonl|.yaml|.json> --agent <module>[#export] [options]

Runs every case of the dataset on the agent, scores each run, prints a summary and writes
result.json, junit.xml and report.html (charts, flaky cases, a trajectory diff per failure).
Cases with a recording replay it as the model (deterministic); the others run live.

The agent module exports an AgentFactory: (setup) => Agent, built with setup.model(yourModel)
as its model (default export, or the export named after #). It may also export "scorers" (run on
every case) and "judge" (a ChatModel for "rubric" expectations). TypeScript modules load when the
CLI runs under tsx (npm run agentscope -- eval ...).

Options:
  --agent <module>        the agent under test (required)
  --mode <mode>           replay (cases need a recording) or live; default: replay where recorded
  --repeat <n>            runs per case, for variance (default 1)
  --concurrency <n>       runs at a time (default 4)
  --out <dir>             where the reports go (default .agentscope/eval/<name>)
  --name <name>           the run's name in reports (default: the dataset's file name)
  --ignore <parts>        request parts not compared with recordings: system,tools,messages
  --compare <result.json> put this run side by side with an earlier one (deltas, 95% intervals)
  --min-pass-rate <0-1>   exit 1 when fewer runs pass (default 1: every run)
  --max-drop <0-1>        with --compare: exit 1 when the pass rate falls more than this
  --fail-on-flaky         exit 1 when a case passes in some repeats and fails in others
`;

interface Writable {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface EvalCommandIo {
  out: Writable;
  /** Where the progress bar goes (drawn when it is a TTY). */
  err?: Writable;
}

interface AgentModule {
  factory: AgentFactory;
  scorers?: Scorer[];
  judge?: ChatModel;
}

async function loadAgentModule(spec: string): Promise<AgentModule> {
  const [path, name = "default"] = spec.split("#") as [string, string?];
  const url = pathToFileURL(isAbsolute(path) ? path : resolve(path)).href;
  let module: Record<string, unknown>;
  try {
    module = await import(url);
  } catch (error) {
    throw new CliError(
      `--agent ${spec}: cannot load the module (${(error as Error).message})`,
      "give a path to a module that exports an AgentFactory; run under tsx for a .ts file",
    );
  }
  const factory = module[name] ?? (name === "default" ? module.agent : undefined);
  if (typeof factory !== "function") {
    const exports = Object.keys(module).sort().join(", ") || "nothing";
    throw new CliError(
      `--agent ${spec}: the module has no ${name === "default" ? 'default export (or "agent")' : `export "${name}"`} that is a function; it exports ${exports}`,
      "export an AgentFactory: (setup) => new Agent({ ..., model: setup.model(yourModel) })",
    );
  }
  const loaded: AgentModule = { factory: factory as AgentFactory };
  if (Array.isArray(module.scorers)) loaded.scorers = module.scorers as Scorer[];
  if (module.judge && typeof module.judge === "object") loaded.judge = module.judge as ChatModel;
  return loaded;
}

function integer(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${option}: "${value}" is not a whole number ≥ 1`);
  return n;
}

function fraction(value: string | undefined, option: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0 || n > 1)
    throw new CliError(`${option}: "${value}" is not a number from 0 to 1`);
  return n;
}

const PARTS: readonly RequestPart[] = ["system", "tools", "messages"];

function ignoreParts(value: string | undefined): RequestPart[] | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(",").map((p) => p.trim());
  const bad = parts.find((p) => !PARTS.includes(p as RequestPart));
  if (bad !== undefined)
    throw new CliError(`--ignore: "${bad}" is not a request part; use ${PARTS.join(", ")}`);
  return parts as RequestPart[];
}

/** `\r[#####.....] 5/10 ✓4 ✗1`: the progress of an eval run. */
export function evalProgress(done: number, total: number, failed: number, width = 20): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ✓${done - failed} ✗${failed}`;
}

function failureLine(run: RunResult): string {
  const why =
    run.error ??
    run.divergence?.message ??
    run.scores
      .filter((s) => !s.pass)
      .map((s) => `${s.scorer}: ${s.reason}`)
      .join("; ");
  return `  ✗ ${run.caseId}${run.repeat > 0 ? ` [repeat ${run.repeat + 1}]` : ""}: ${why}\n`;
}

function summaryText(report: EvalReport): string {
  const s = report.summary;
  return `eval ${report.name}: ${s.passed}/${s.runs} runs passed (${Math.round(s.passRate * 100)}%), ${s.casesPassed}/${s.cases} cases, ${s.flaky.length} flaky, ${(report.durationMs / 1000).toFixed(2)} s\n`;
}

/**
 * `agentscope eval DATASET --agent MODULE`: runs and scores the dataset, writes the reports and
 * returns the exit code (0, or 1 when a threshold is missed). Bad options throw a CliError.
 */
export async function evalCommand(args: string[], io: EvalCommandIo): Promise<number> {
  try {
    return await runEvalCommand(args, io);
  } catch (error) {
    // A bad dataset, case or result file is the user's to fix: one line, no stack.
    if (error instanceof EvalCaseError || error instanceof ValidationError || error instanceof TraceFileError)
      throw new CliError(error.message, "fix the file or option named above");
    throw error;
  }
}

async function runEvalCommand(args: string[], io: EvalCommandIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      agent: { type: "string" },
      mode: { type: "string" },
      repeat: { type: "string" },
      concurrency: { type: "string" },
      out: { type: "string" },
      name: { type: "string" },
      ignore: { type: "string" },
      compare: { type: "string" },
      "min-pass-rate": { type: "string" },
      "max-drop": { type: "string" },
      "fail-on-flaky": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    io.out.write(EVAL_HELP);
    return 0;
  }
  const [dataset, ...extra] = positionals;
  if (dataset === undefined || extra.length > 0)
    throw new CliError("eval takes one dataset file", "agentscope eval --help shows the usage");
  if (!values.agent)
    throw new CliError("eval needs --agent <module>", "agentscope eval --help shows what the module exports");
  if (values.mode !== undefined && values.mode !== "replay" && values.mode !== "live")
    throw new CliError(`--mode: "${values.mode}" is not a mode; use replay or live`);
  const thresholds: Thresholds = { minPassRate: fraction(values["min-pass-rate"], "--min-pass-rate") ?? 1 };
  const maxDrop = fraction(values["max-drop"], "--max-drop");
  if (maxDrop !== undefined) thresholds.maxDrop = maxDrop;
  if (values["fail-on-flaky"]) thresholds.failOnFlaky = true;
  const base = values.compare ? await readReport(values.compare) : undefined;
  const cases = await loadDataset(dataset);
  const agent = await loadAgentModule(values.agent);
  const name = values.name ?? dataset.replace(/^.*[\\/]/, "").replace(/\.[^.]+$/, "");
  const options: EvalOptions = { name, cases, agent: agent.factory };
  const repeats = integer(values.repeat, "--repeat");
  const concurrency = integer(values.concurrency, "--concurrency");
  const ignore = ignoreParts(values.ignore);
  if (values.mode) options.mode = values.mode as RunMode;
  if (repeats) options.repeats = repeats;
  if (concurrency) options.concurrency = concurrency;
  if (ignore) options.ignore = ignore;
  if (agent.scorers) options.scorers = agent.scorers;
  if (agent.judge) options.judge = agent.judge;
  let failed = 0;
  const err = io.err;
  if (err?.isTTY) {
    options.onProgress = (done, total, result) => {
      if (!result.pass) failed += 1;
      err.write(evalProgress(done, total, failed));
      if (done === total) err.write("\n");
    };
  }
  const report = await runEval(options);
  const comparison = base ? compareReports(base, report) : undefined;
  const files = await writeReports(report, values.out ?? `.agentscope/eval/${name}`, comparison);
  io.out.write(summaryText(report));
  for (const run of report.runs.filter((r) => !r.pass).slice(0, 10)) io.out.write(failureLine(run));
  if (comparison) {
    const d = comparison.passRate;
    io.out.write(
      `compared with ${comparison.base}: pass rate ${Math.round(d.base * 100)}% → ${Math.round(d.head * 100)}% (${d.delta >= 0 ? "+" : ""}${(d.delta * 100).toFixed(1)} pts, 95% interval ${(d.ci95[0] * 100).toFixed(1)} to ${(d.ci95[1] * 100).toFixed(1)}${d.significant ? ", significant" : ""})\n`,
    );
    for (const c of comparison.cases.filter((c) => c.change === "regressed" || c.change === "fixed"))
      io.out.write(`  ${c.change === "fixed" ? "+" : "-"} ${c.caseId} ${c.change}\n`);
  }
  io.out.write(`report: ${files.html}\nresults: ${files.json}\njunit: ${files.junit}\n`);
  const missed = missedThresholds(report, thresholds, comparison);
  for (const line of missed) io.out.write(`threshold missed: ${line}\n`);
  return missed.length > 0 ? 1 : 0;
}
