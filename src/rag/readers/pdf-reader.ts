import { DocumentReadError } from "../errors.js";
import type { Section } from "../types.js";
import { importOptional } from "./lazy-import.js";
import { checkPdfDocument } from "./pdf-limits.js";
import type { Reader, ReaderInput } from "./reader.js";
import type { ZipLimits } from "./zip-limits.js";

/**
 * PDF through unpdf (PDF.js): one section per page with its 1-based page number; blank pages
 * skipped. Under the zip readers' limits (`checkPdfDocument`): a PDF too big, or whose streams
 * inflate too far, is a DocumentLimitError before PDF.js sees it.
 */
export class PdfReader implements Reader {
  readonly name = "pdf";
  readonly extensions = ["pdf"];
  readonly mediaTypes = ["application/pdf"];

  constructor(private readonly limits: ZipLimits = {}) {}

  async read({ source, bytes }: ReaderInput): Promise<Section[]> {
    checkPdfDocument(source, bytes, this.limits);
    const { extractText, getDocumentProxy } = await importOptional(
      () => import("unpdf"),
      "unpdf",
      "the PDF reader",
    );
    let pages: string[];
    try {
      // PDF.js takes ownership of (detaches) the buffer it is given: hand it a copy.
      // verbosity 0: PDF.js reports errors by throwing, not by printing warnings.
      const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
      ({ text: pages } = await extractText(pdf, { mergePages: false }));
    } catch (error) {
      const name = (error as Error).name;
      const problem =
        name === "PasswordException"
          ? "the PDF is encrypted (password protected)"
          : `not a readable PDF (${(error as Error).message})`;
      throw new DocumentReadError(source, problem, { cause: error });
    }
    return pages
      .map((text, i) => ({ source, mediaType: "application/pdf", page: i + 1, text: text.trim() }))
      .filter((section) => section.text !== "");
  }
}
