import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { EvalReportBody, EvalRunDetail, EvalRunInfo, EvalRunList } from "../../../protocol/index.js";
import { ConfigError } from "../config/service-config.js";
import { RequestError } from "../request-error.js";

/** The most runs a list holds (the newest). */
export const MAX_LISTED_RUNS = 200;
const RESULT_FILE = "result.json";
/** An entry name a report may have: no separators, no leading dot (so never `.` or `..`). */
const REPORT_ID = /^[\w-][\w.-]{0,127}$/;
const HOW_TO =
  "run `agentscope eval cases.jsonl --agent ./agent.ts --out <reports>/<name>`: each run's result.json is listed here (docs/evals.md)";

/** The hint the list answers with when the config has no `evals`. */
export const EVALS_OFF_HINT = `this server serves no eval reports: set \`evals: { reports: ".agentscope/eval" }\` in the service config, then ${HOW_TO}`;

const isReport = (value: unknown): value is EvalReportBody =>
  (value as { format?: unknown } | null)?.format === "agentscope-eval/1" &&
  Array.isArray((value as { runs?: unknown }).runs);

function infoOf(id: string, report: EvalReportBody): EvalRunInfo {
  const passed = report.runs.filter((run) => run.pass).length;
  return {
    id,
    name: String(report.name),
    createdAt: String(report.createdAt),
    durationMs: Number(report.durationMs) || 0,
    runs: report.runs.length,
    passed,
    failed: report.runs.length - passed,
    cases: report.cases?.length ?? 0,
    casesPassed: (report.cases ?? []).filter((c) => c.passed === c.runs).length,
  };
}

/**
 * The eval reports under one directory, as `agentscope eval` writes them: each run a directory
 * holding result.json (`--out <dir>/<name>`), or a result file copied in as `<name>.json`. A run's
 * id is its entry's plain name; nothing outside the directory is ever read.
 */
export class EvalReports {
  readonly dir: string;
  /** The directory as configured (what messages show, not the server's absolute path). */
  readonly #shown: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
    this.#shown = dir;
  }

  /** A directory that is not one (a file in its place) is a config error; a missing one lists nothing yet. */
  static async open(dir: string): Promise<EvalReports> {
    const reports = new EvalReports(dir);
    const found = await stat(reports.dir).catch(() => undefined);
    if (found && !found.isDirectory())
      throw new ConfigError(`config: evals.reports: ${dir} is not a directory`);
    return reports;
  }

  async list(): Promise<EvalRunList> {
    const entries = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
    const runs: EvalRunInfo[] = [];
    for (const entry of entries) {
      if (!REPORT_ID.test(entry.name) || !(entry.isDirectory() || entry.name.endsWith(".json"))) continue;
      const report = await this.#read(entry.name);
      if (report) runs.push(infoOf(entry.name, report));
    }
    runs.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
    const list: EvalRunList = {
      runs: runs.slice(0, MAX_LISTED_RUNS),
      truncated: runs.length > MAX_LISTED_RUNS,
    };
    if (runs.length === 0) list.hint = `no eval reports in ${this.#shown} yet: ${HOW_TO}`;
    return list;
  }

  /** One run's report; an id that is not a plain entry name is refused, one not found is a 404. */
  async get(id: string): Promise<EvalRunDetail> {
    if (!REPORT_ID.test(id))
      throw new RequestError(
        "invalid_request",
        `"${id}" is not an eval run id (a name from GET /v1/evals/runs)`,
      );
    const report = await this.#read(id);
    if (!report) throw new RequestError("not_found", `no eval run "${id}" in the reports`);
    return { run: infoOf(id, report), report };
  }

  /** The report of an entry (a directory's result.json, or a .json file), or undefined when none is there. */
  async #read(name: string): Promise<EvalReportBody | undefined> {
    const path = join(this.dir, name);
    const file = (await stat(path).catch(() => undefined))?.isDirectory() ? join(path, RESULT_FILE) : path;
    if (!file.endsWith(".json")) return undefined;
    try {
      const value: unknown = JSON.parse(await readFile(file, "utf8"));
      return isReport(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }
}
