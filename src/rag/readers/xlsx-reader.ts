import { DocumentReadError } from "../errors.js";
import type { Section } from "../types.js";
import { rowsAsText } from "./csv-reader.js";
import { importOptional } from "./lazy-import.js";
import type { Reader, ReaderInput } from "./reader.js";
import { checkZipArchive, type ZipLimits } from "./zip-limits.js";

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** Text of a cell value as ExcelJS returns it (rich text, formulas, hyperlinks, dates). */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value !== "object") return String(value);
  const v = value as { richText?: { text: string }[]; result?: unknown; text?: string; error?: string };
  if (v.richText) return v.richText.map((part) => part.text).join("");
  if ("result" in v) return cellText(v.result);
  if (typeof v.text === "string") return v.text;
  return v.error ?? "";
}

/** Excel .xlsx through ExcelJS: one section per non-empty sheet, rows as `column: value` lines. */
export class XlsxReader implements Reader {
  readonly name = "xlsx";
  readonly extensions = ["xlsx"];
  readonly mediaTypes = [XLSX];

  /** `limits`: how far the archive may inflate (checked before the library opens it). */
  constructor(private readonly limits: ZipLimits = {}) {}

  async read({ source, bytes }: ReaderInput): Promise<Section[]> {
    checkZipArchive(source, bytes, this.limits);
    const { default: ExcelJS } = await importOptional(() => import("exceljs"), "exceljs", "the .xlsx reader");
    const workbook = new ExcelJS.Workbook();
    try {
      await workbook.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
    } catch (error) {
      throw new DocumentReadError(source, `not a readable .xlsx file (${(error as Error).message})`, {
        cause: error,
      });
    }
    const sections: Section[] = [];
    for (const sheet of workbook.worksheets) {
      const rows: string[][] = [];
      sheet.eachRow((row) => {
        const cells: string[] = [];
        row.eachCell({ includeEmpty: true }, (cell, column) => {
          cells[column - 1] = cellText(cell.value);
        });
        rows.push(Array.from(cells, (cell) => cell ?? ""));
      });
      const text = rowsAsText(rows);
      if (text.trim() !== "") sections.push({ source, mediaType: XLSX, sheet: sheet.name, text });
    }
    return sections;
  }
}
