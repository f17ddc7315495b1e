import { DocumentReadError } from "../errors.js";
import type { Section } from "../types.js";
import { HtmlReader } from "./html-reader.js";
import { importOptional } from "./lazy-import.js";
import type { Reader, ReaderInput } from "./reader.js";
import { checkZipArchive, type ZipLimits } from "./zip-limits.js";

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** Word .docx through mammoth: converted to HTML, then one section per heading like the HTML reader. */
export class DocxReader implements Reader {
  readonly name = "docx";
  readonly extensions = ["docx"];
  readonly mediaTypes = [DOCX];

  /** `limits`: how far the archive may inflate (checked before the library opens it). */
  constructor(private readonly limits: ZipLimits = {}) {}
  readonly #html = new HtmlReader();

  async read({ source, bytes }: ReaderInput): Promise<Section[]> {
    checkZipArchive(source, bytes, this.limits);
    const mammoth = await importOptional(() => import("mammoth"), "mammoth", "the .docx reader");
    let html: string;
    try {
      ({ value: html } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) }));
    } catch (error) {
      throw new DocumentReadError(source, `not a readable .docx file (${(error as Error).message})`, {
        cause: error,
      });
    }
    const sections = await this.#html.read({ source, bytes: new TextEncoder().encode(html) });
    return sections.map((section) => ({ ...section, mediaType: DOCX }));
  }
}
