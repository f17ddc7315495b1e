import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { DocumentLimitError, DocumentReadError } from "../../src/rag/errors.js";
import { checkZipArchive, DocxReader, readDocument } from "../../src/rag/readers/index.js";
import { buildZip } from "./fixtures/zip-builder.js";

/** Zip bombs and lying archives, refused before (or while) anything inflates them. */

const zeros = (n: number) => new Uint8Array(n);
const xml = (text: string) => new TextEncoder().encode(text);

async function readError(name: string, bytes: Uint8Array): Promise<unknown> {
  return readDocument({ source: name, bytes }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("zip-based documents", () => {
  it("a .docx that inflates 1000:1 is refused by ratio, naming the file and the limit", async () => {
    const bomb = buildZip([
      { name: "[Content_Types].xml", data: xml("<Types/>") },
      { name: "word/document.xml", data: zeros(8 * 1024 * 1024) },
    ]);
    expect(bomb.byteLength).toBeLessThan(20_000);
    for (const name of ["bomb.docx", "bomb.xlsx", "bomb.pptx"]) {
      const error = await readError(name, bomb);
      expect(error, name).toBeInstanceOf(DocumentLimitError);
      expect((error as DocumentLimitError).limit).toBe("maxCompressionRatio");
      expect((error as Error).message).toContain(`cannot read ${name}`);
      expect((error as Error).message).toContain("word/document.xml");
      expect((error as Error).message).toContain("maxCompressionRatio: 100");
    }
  });

  it("refuses an archive whose declared total is over maxUncompressedBytes before inflating", () => {
    const archive = buildZip([
      { name: "a.xml", data: randomBytes(600_000) },
      { name: "b.xml", data: randomBytes(600_000) },
    ]);
    expect(() => checkZipArchive("big.docx", archive, { maxUncompressedBytes: 1_000_000 })).toThrow(
      /inflates to 1200000 bytes.*maxUncompressedBytes: 1000000/,
    );
    expect(() => checkZipArchive("big.docx", archive)).not.toThrow();
  });

  it("an entry that lies about its size stops at the lie (the cap is its declared size)", () => {
    // Declares 1,000 bytes, so the central directory looks harmless; it holds 16 MiB.
    const liar = buildZip([{ name: "word/document.xml", data: zeros(16 * 1024 * 1024), declaredSize: 1000 }]);
    const error = (() => {
      try {
        checkZipArchive("liar.docx", liar);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(DocumentReadError);
    expect((error as Error).message).toMatch(
      /liar\.docx.*word\/document\.xml inflates past the 1000 bytes it declares/,
    );
  });

  it("refuses data the central directory does not list (a hidden entry a streaming reader would inflate)", () => {
    const hidden = buildZip([
      { name: "word/document.xml", data: xml("<w:document/>") },
      { name: "hidden.bin", data: zeros(4 * 1024 * 1024), listed: false },
      { name: "[Content_Types].xml", data: xml("<Types/>") },
    ]);
    expect(() => checkZipArchive("hidden.docx", hidden)).toThrow(/data outside its entries/);
  });

  it("refuses too many entries, encrypted entries and other compression methods", () => {
    const many = buildZip(Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, data: xml("x") })));
    expect(() => checkZipArchive("many.xlsx", many, { maxArchiveEntries: 20 })).toThrow(
      /30 entries.*maxArchiveEntries: 20/,
    );
    expect(() => checkZipArchive("enc.docx", buildZip([{ name: "a", data: xml("x"), flags: 1 }]))).toThrow(
      /a is encrypted/,
    );
    const stored = buildZip([{ name: "a", data: xml("stored"), method: 0 }]);
    expect(() => checkZipArchive("stored.docx", stored)).not.toThrow();
  });

  it("a non-zip file is a DocumentReadError naming it", async () => {
    const error = await readError("notes.docx", xml("plain text, not a zip"));
    expect(error).toBeInstanceOf(DocumentReadError);
    expect((error as Error).message).toMatch(/cannot read notes\.docx: not a readable zip archive/);
  });

  it("the limits are options of the readers", async () => {
    const archive = buildZip([{ name: "word/document.xml", data: randomBytes(300_000) }]);
    await expect(
      new DocxReader({ maxUncompressedBytes: 100_000 }).read({ source: "s.docx", bytes: archive }),
    ).rejects.toThrow(/maxUncompressedBytes: 100000/);
  });
});
