import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ReportComparison } from "./compare.js";
import { EvalCaseError } from "./eval-error.js";
import { htmlReport } from "./html-report.js";
import { junitXml } from "./junit.js";
import type { EvalReport } from "./report.js";

/** Where `writeReports` put each file. */
export interface ReportFiles {
  json: string;
  junit: string;
  html: string;
}

/** Writes `result.json`, `junit.xml` and `report.html` into `dir` (created if missing). */
export async function writeReports(
  report: EvalReport,
  dir: string,
  comparison?: ReportComparison,
): Promise<ReportFiles> {
  await mkdir(dir, { recursive: true });
  const files = {
    json: join(dir, "result.json"),
    junit: join(dir, "junit.xml"),
    html: join(dir, "report.html"),
  };
  await writeFile(files.json, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(files.junit, junitXml(report));
  await writeFile(files.html, htmlReport(report, comparison));
  return files;
}

/** Reads a result file written by `writeReports` (for `--compare`); a file of another kind is an error. */
export async function readReport(file: string): Promise<EvalReport> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new EvalCaseError(`cannot read eval result ${file}: ${(error as Error).message}`, { cause: error });
  }
  if ((value as { format?: unknown } | null)?.format !== "agentscope-eval/1") {
    throw new EvalCaseError(
      `${file} is not an eval result file (no "format": "agentscope-eval/1"); pass a result.json an eval wrote`,
    );
  }
  return value as EvalReport;
}
