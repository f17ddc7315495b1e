import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { DocumentLimitError } from "../../src/rag/errors.js";
import { checkPdfDocument, defaultReaders, readDocument } from "../../src/rag/readers/index.js";
import { generateDocuments } from "./fixtures/generate-documents.js";

const dir = mkdtempSync(join(tmpdir(), "pdf-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** PDF bombs: refused under the zip readers' limits before PDF.js inflates anything. */

const latin1 = (text: string) => Buffer.from(text, "latin1");

/** A PDF-shaped file with one object whose stream is `data`, under the dictionary `dictionary`. */
function pdfWithStream(data: Uint8Array, dictionary = "/Filter /FlateDecode"): Uint8Array {
  return Buffer.concat([
    latin1(`%PDF-1.4\n1 0 obj\n<< /Length ${data.byteLength} ${dictionary} >>\nstream\n`),
    data,
    latin1("\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n"),
  ]);
}

async function readError(source: string, bytes: Uint8Array, zip = {}): Promise<unknown> {
  return readDocument({ source, bytes }, { readers: defaultReaders({ zip }) }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("PDF documents under the document limits", () => {
  it("a page stream that inflates 1000:1 is refused by ratio, naming the file and the limit", async () => {
    const bomb = pdfWithStream(deflateSync(new Uint8Array(16 * 1024 * 1024)));
    expect(bomb.byteLength).toBeLessThan(40_000);
    const error = await readError("bomb.pdf", bomb);
    expect(error).toBeInstanceOf(DocumentLimitError);
    expect(error).toMatchObject({ limit: "maxCompressionRatio", value: 100 });
    expect((error as Error).message).toContain("cannot read bomb.pdf");
  });

  it("streams that inflate past maxUncompressedBytes are refused, and inflating stops at the cap", () => {
    // Random text compresses little: the ratio holds, the total does not.
    const text = Buffer.from(randomBytes(1536 * 1024).toString("hex"));
    const pdf = pdfWithStream(deflateSync(text));
    expect(() => checkPdfDocument("big.pdf", pdf, { maxUncompressedBytes: 2 * 1024 * 1024 })).toThrow(
      expect.objectContaining({ limit: "maxUncompressedBytes", value: 2 * 1024 * 1024 }),
    );
    expect(() => checkPdfDocument("big.pdf", pdf, { maxUncompressedBytes: 64 * 1024 * 1024 })).not.toThrow();
  });

  it("a PDF file larger than maxUncompressedBytes is refused before it is parsed", async () => {
    const error = await readError("large.pdf", new Uint8Array(2 * 1024 * 1024), {
      maxUncompressedBytes: 1024 * 1024,
    });
    expect(error).toMatchObject({ name: "DocumentLimitError", limit: "maxUncompressedBytes" });
  });

  it("images are not counted (text extraction never decodes them), and a real PDF reads", async () => {
    const image = pdfWithStream(
      deflateSync(new Uint8Array(16 * 1024 * 1024)),
      "/Subtype /Image /Filter /FlateDecode",
    );
    expect(() => checkPdfDocument("scan.pdf", image)).not.toThrow();
    const files = await generateDocuments(dir);
    const sections = await readDocument(files.pdf, { readers: defaultReaders({ zip: {} }) });
    expect(sections.length).toBeGreaterThan(0);
  });
});
