import { DocumentReadError } from "../errors.js";
import type { Section } from "../types.js";
import { decodeText, type Reader, type ReaderInput } from "./reader.js";

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF); throws on an unclosed quote. */
export function parseCsv(text: string, delimiter = ","): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i++;
      continue;
    }
    if (c === '"' && field === "") quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
    i++;
  }
  if (quoted) throw new Error("a quoted field is never closed");
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((cell) => cell.trim() !== ""));
}

/** Rows as `header: value` lines, one row a line, so every chunk of a table keeps its column names. */
export function rowsAsText(rows: readonly (readonly string[])[]): string {
  const [header, ...body] = rows;
  if (!header) return "";
  if (body.length === 0) return header.join(" | ");
  return body
    .map((row) =>
      row
        .map((cell, i) => `${header[i]?.trim() || `column ${i + 1}`}: ${cell.trim()}`)
        .filter((_, i) => (row[i] ?? "").trim() !== "")
        .join(" | "),
    )
    .join("\n");
}

/** CSV and TSV: one section, the first row as the header, rows as `column: value | ...` lines. */
export class CsvReader implements Reader {
  readonly name = "csv";
  readonly extensions = ["csv", "tsv"];
  readonly mediaTypes = ["text/csv", "text/tab-separated-values"];

  async read({ source, bytes, mediaType }: ReaderInput): Promise<Section[]> {
    const tab = source.toLowerCase().endsWith(".tsv") || mediaType === "text/tab-separated-values";
    try {
      const rows = parseCsv(decodeText(bytes), tab ? "\t" : ",");
      return [{ source, mediaType: tab ? "text/tab-separated-values" : "text/csv", text: rowsAsText(rows) }];
    } catch (error) {
      throw new DocumentReadError(source, (error as Error).message, { cause: error });
    }
  }
}
