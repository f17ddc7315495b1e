import { readFile, writeFile } from "node:fs/promises";
import { extname } from "node:path";
import { installCommand } from "../state/lazy-driver.js";
import type { EvalCase } from "./case.js";
import { parseCase } from "./case-schema.js";
import { EvalCaseError } from "./eval-error.js";

export type DatasetFormat = "jsonl" | "yaml" | "json";

/** The format a file name says: `.jsonl`, `.yaml`/`.yml` or `.json`. */
export function datasetFormatOf(file: string): DatasetFormat {
  const ext = extname(file).toLowerCase();
  if (ext === ".jsonl" || ext === ".ndjson") return "jsonl";
  if (ext === ".yaml" || ext === ".yml") return "yaml";
  if (ext === ".json") return "json";
  throw new EvalCaseError(
    `dataset ${file}: unknown format "${ext || "(no extension)"}"; use .jsonl, .yaml, .yml or .json`,
  );
}

/** The yaml package, loaded only for YAML datasets. */
async function yaml(): Promise<typeof import("yaml")> {
  try {
    return await import("yaml");
  } catch (error) {
    throw new EvalCaseError(`YAML datasets need the yaml package: ${installCommand("yaml")}`, {
      cause: error,
    });
  }
}

function checkIds(cases: EvalCase[], file: string): EvalCase[] {
  const seen = new Set<string>();
  for (const evalCase of cases) {
    if (seen.has(evalCase.id))
      throw new EvalCaseError(`dataset ${file}: two cases have the id "${evalCase.id}"; ids must be unique`);
    seen.add(evalCase.id);
  }
  return cases;
}

function casesOf(value: unknown, file: string): unknown[] {
  const list = Array.isArray(value) ? value : (value as { cases?: unknown } | null)?.cases;
  if (!Array.isArray(list))
    throw new EvalCaseError(`dataset ${file}: expected a list of cases (or an object with "cases")`);
  return list;
}

/** Parses dataset text: JSONL (a case per line; blank lines and `#` comments skipped), YAML or JSON. */
export async function parseDataset(
  text: string,
  format: DatasetFormat,
  file = "(dataset)",
): Promise<EvalCase[]> {
  if (format === "jsonl") {
    const cases: EvalCase[] = [];
    text.split("\n").forEach((line, i) => {
      if (line.trim() === "" || line.trimStart().startsWith("#")) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new EvalCaseError(`${file}:${i + 1}: not JSON (${(error as Error).message})`);
      }
      cases.push(parseCase(value, `${file}:${i + 1}`));
    });
    return checkIds(cases, file);
  }
  let value: unknown;
  try {
    value = format === "yaml" ? (await yaml()).parse(text) : JSON.parse(text);
  } catch (error) {
    if (error instanceof EvalCaseError) throw error;
    throw new EvalCaseError(`${file}: not valid ${format.toUpperCase()} (${(error as Error).message})`);
  }
  return checkIds(
    casesOf(value, file).map((item, i) => parseCase(item, `${file} case ${i + 1}`)),
    file,
  );
}

/** Reads a dataset file; the format comes from its extension. */
export async function loadDataset(file: string): Promise<EvalCase[]> {
  const format = datasetFormatOf(file);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new EvalCaseError(`cannot read dataset ${file}: ${(error as Error).message}`, { cause: error });
  }
  return parseDataset(text, format, file);
}

/** Writes cases as a dataset file (format from the extension) that `loadDataset` reads back. */
export async function saveDataset(file: string, cases: readonly EvalCase[]): Promise<void> {
  const format = datasetFormatOf(file);
  const plain = JSON.parse(JSON.stringify(cases)) as unknown[];
  const text =
    format === "jsonl"
      ? plain.map((c) => JSON.stringify(c)).join("\n") + "\n"
      : format === "yaml"
        ? (await yaml()).stringify(plain)
        : `${JSON.stringify(plain, null, 2)}\n`;
  await writeFile(file, text);
}
