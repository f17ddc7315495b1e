import { readFileSync } from "node:fs";
import type { Find } from "./harness.js";

/** A find kept in fixtures/differential-finds.json: the analysis helper fixes it, the test keeps it fixed. */
export interface RecordedFind {
  /** The command: the piece of a compound command that did it on its own, when there is one. */
  command: string;
  /** The whole command it was found as, when that was longer. */
  foundAs?: string;
  /** Found in a tree with a benign repository (absent: the hostile one). */
  repository?: "benign";
  /** What the detectors saw, as the harness reported it. */
  happened: string[];
  /** The day it was found (YYYY-MM-DD). */
  date: string;
  /** Where it came from: the corpus, or the generator with its seed. */
  source: string;
  /** Still allowed without asking: the test expects the check to fail until it is fixed. */
  open: boolean;
  /**
   * `environment`: fixed not by refusing the command but by what the Bash tool runs every command
   * with (BASH_COMMAND_ENVIRONMENT): it stays allowed, and the test runs it and expects no find.
   */
  fixedBy?: "environment";
  note?: string;
}

/** Reads and checks the finds file; throws naming the entry and field that is wrong. */
export function loadFinds(path: string): RecordedFind[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`${path} is not readable JSON: ${(error as Error).message}`);
  }
  const finds = (parsed as { finds?: unknown })?.finds;
  if (!Array.isArray(finds)) throw new Error(`${path} must be an object with a "finds" array`);
  return finds.map((entry, index) => checkFind(entry, `${path} finds[${index}]`));
}

function checkFind(entry: unknown, where: string): RecordedFind {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry))
    throw new Error(`${where} must be an object`);
  const record = entry as Record<string, unknown>;
  const text = (name: string, optional = false): string | undefined => {
    const value = record[name];
    if (value === undefined && optional) return undefined;
    if (typeof value !== "string" || value === "")
      throw new Error(`${where}.${name} must be a non-empty string`);
    return value;
  };
  const command = text("command")!;
  const date = text("date")!;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date))
    throw new Error(`${where}.date must be YYYY-MM-DD, got ${JSON.stringify(date)}`);
  const happened = record.happened;
  if (
    !Array.isArray(happened) ||
    happened.length === 0 ||
    !happened.every((line) => typeof line === "string")
  )
    throw new Error(`${where}.happened must be a non-empty array of strings`);
  if (typeof record.open !== "boolean") throw new Error(`${where}.open must be true or false`);
  const known = new Set([
    ...["command", "foundAs", "repository", "happened", "date", "source", "open", "fixedBy", "note"],
  ]);
  const unknown = Object.keys(record).find((key) => !known.has(key));
  if (unknown) throw new Error(`${where} has an unknown field "${unknown}"`);
  const out: RecordedFind = { command, happened, date, source: text("source")!, open: record.open };
  if (record.repository !== undefined && record.repository !== "benign")
    throw new Error(`${where}.repository must be "benign" when given`);
  if (record.repository === "benign") out.repository = "benign";
  if (record.fixedBy !== undefined && record.fixedBy !== "environment")
    throw new Error(`${where}.fixedBy must be "environment" when given`);
  if (record.fixedBy === "environment") out.fixedBy = "environment";
  const foundAs = text("foundAs", true);
  if (foundAs !== undefined) out.foundAs = foundAs;
  const note = text("note", true);
  if (note !== undefined) out.note = note;
  return out;
}

/** An observation without its run-specific detail (arguments, which stat fields changed). */
export function normaliseObservation(line: string): string {
  return line.replace(/ \(args: .*\)$/s, "").replace(/ \([^()]*\)$/, "");
}

/** Every observation an open find showed: a new find made only of these is the same open problem. */
export function openObservations(finds: readonly RecordedFind[]): Set<string> {
  return new Set(
    finds.filter((find) => find.open).flatMap((find) => find.happened.map(normaliseObservation)),
  );
}

/** Whether everything a find did is already recorded as open. */
export function isKnownOpen(find: Find, open: ReadonlySet<string>): boolean {
  return find.happened.every((line) => open.has(normaliseObservation(line)));
}

/** A find as it goes into the finds file: `reduced` is the find of the piece that did it alone. */
export function recordOf(find: Find, source: string, date: string, reduced?: Find): RecordedFind {
  const shown = reduced ?? find;
  const record: RecordedFind = {
    command: shown.command,
    happened: [...new Set(shown.happened.map(normaliseObservation))],
    date,
    source,
    open: true,
  };
  if (shown.command !== find.command) record.foundAs = find.command;
  if (find.repository === "benign") record.repository = "benign";
  return record;
}
