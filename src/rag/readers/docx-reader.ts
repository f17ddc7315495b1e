import { DocumentReadError } from "../errors.js";
import type { Section } from "../types.js";
import { HtmlReader } from "./html-reader.js";
import { importOptional } from "./lazy-import.js";
import type { Reader, ReaderInput } from "./reader.js";

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** Word .docx through mammoth: converted to HTML, then one section per heading like the HTML reader. */
export class DocxReader implements Reader {
  readonly name = "docx";
  readonly extensions = ["docx"];
  readonly mediaTypes = [DOCX];
  readonly #html = new HtmlReader();

  async read({ source, bytes }: ReaderInput): Promise<Section[]> {
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
