import type { DecisionRecord } from "./decision-record.js";

/** A decision record as the audit export writes it: the record and the session it belongs to. */
export type ExportedDecision = DecisionRecord & { sessionId: string };

/** The export's formats: JSON Lines (one record per line) or CSV (RFC 4180, a header row). */
export type DecisionExportFormat = "jsonl" | "csv";

/** The CSV columns, in order. Lists and objects are JSON text in their cell; absent fields are empty. */
export const DECISION_CSV_COLUMNS = [
  "createdAt",
  "sessionId",
  "replyId",
  "id",
  "source",
  "toolCallId",
  "toolName",
  "outcome",
  "actor",
  "channel",
  "mode",
  "rule",
  "policy",
  "reason",
  "input",
  "approvedInput",
  "diff",
  "rules",
  "approvers",
  "expiresAt",
  "taint",
] as const satisfies readonly (keyof ExportedDecision)[];

const JSON_COLUMNS = new Set<string>(["diff", "rules", "approvers", "taint"]);

/** One JSON Lines line per record (each ends with a newline). */
export function decisionsToJsonl(records: readonly ExportedDecision[]): string {
  return records.map((record) => `${JSON.stringify(record)}\n`).join("");
}

export function decisionsFromJsonl(text: string): ExportedDecision[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as ExportedDecision);
}

/** CSV with a header row; cells with a comma, quote or line break are quoted (quotes doubled). */
export function decisionsToCsv(records: readonly ExportedDecision[]): string {
  const rows = [DECISION_CSV_COLUMNS.join(",")];
  for (const record of records) {
    rows.push(
      DECISION_CSV_COLUMNS.map((column) => {
        const value = record[column];
        if (value === undefined) return "";
        return csvCell(JSON_COLUMNS.has(column) ? JSON.stringify(value) : String(value));
      }).join(","),
    );
  }
  return `${rows.join("\r\n")}\r\n`;
}

/** Reads what `decisionsToCsv` wrote (columns by the header row, so their order may differ). */
export function decisionsFromCsv(text: string): ExportedDecision[] {
  const [header, ...rows] = csvRows(text);
  if (!header) return [];
  return rows.map((cells) => {
    const record: Record<string, unknown> = {};
    header.forEach((column, i) => {
      const cell = cells[i] ?? "";
      if (cell === "") return;
      record[column] = JSON_COLUMNS.has(column) ? JSON.parse(cell) : cell;
    });
    return record as unknown as ExportedDecision;
  });
}

function csvCell(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += ch;
  }
  if (cell !== "" || row.length > 0) rows.push([...row, cell]);
  return rows;
}
