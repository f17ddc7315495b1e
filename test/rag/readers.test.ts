import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DocumentReadError, ImageReader, readDocument } from "../../src/rag/index.js";
import { generateDocuments } from "./fixtures/generate-documents.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("text readers", () => {
  it("reads Markdown into one section per heading with the heading path", async () => {
    const sections = await readDocument({
      source: "notes.md",
      bytes: bytes(
        "---\ntitle: x\n---\nIntro line.\n# Setup\nInstall it.\n## Linux\nUse apt.\n```\n# not a heading\n```\n# Usage\nRun it.",
      ),
    });
    expect(sections.map((s) => [s.headingPath, s.text.split("\n")[0]])).toEqual([
      [undefined, "Intro line."],
      [["Setup"], "# Setup"],
      [["Setup", "Linux"], "## Linux"],
      [["Usage"], "# Usage"],
    ]);
    expect(sections[2]?.text).toContain("# not a heading");
    expect(sections[0]).toMatchObject({ source: "notes.md", mediaType: "text/markdown" });
  });

  it("reads HTML into clean text per heading, dropping scripts and styles", async () => {
    const html = `<html><head><title>T</title><style>p{color:red}</style></head><body>
      <h1>Guide</h1><p>Hello &amp; welcome&nbsp;here.</p><script>alert("x")</script>
      <h2>Tables</h2><table><tr><th>Name</th><th>Age</th></tr><tr><td>Ada</td><td>36</td></tr></table>
      <!-- hidden --><h1>Other</h1><p>Bye &#x263A;</p></body></html>`;
    const sections = await readDocument({ source: "page.html", bytes: bytes(html) });
    expect(sections.map((s) => s.headingPath)).toEqual([["Guide"], ["Guide", "Tables"], ["Other"]]);
    expect(sections[0]?.text).toBe("Guide\n\nHello & welcome here.");
    expect(sections[1]?.text).toMatch(/Name \| Age/);
    expect(sections.map((s) => s.text).join()).not.toMatch(/alert|color|hidden/);
    expect(sections[2]?.text).toContain("☺");
  });

  it("reads CSV rows as column: value lines, quotes and all", async () => {
    const [section] = await readDocument({
      source: "people.csv",
      bytes: bytes('name,quote\r\nAda,"Hello, ""world"""\nGrace,"multi\nline"\n'),
    });
    expect(section?.text).toBe('name: Ada | quote: Hello, "world"\nname: Grace | quote: multi\nline');
    await expect(readDocument({ source: "bad.csv", bytes: bytes('a,"open') })).rejects.toThrow(
      /bad\.csv.*never closed/,
    );
  });

  it("reads JSON arrays and JSON Lines as one section per record", async () => {
    const sections = await readDocument({ source: "d.json", bytes: bytes('[{"a":{"b":[1,2]}},{"c":"x"}]') });
    expect(sections.map((s) => s.text)).toEqual(["a.b[0]: 1\na.b[1]: 2", "c: x"]);
    const lines = await readDocument({ source: "d.jsonl", bytes: bytes('{"q":1}\n\n{"q":2}\n') });
    expect(lines.map((s) => s.text)).toEqual(["q: 1", "q: 2"]);
    const error = await readDocument({ source: "broken.json", bytes: bytes("{oops") }).catch((e) => e);
    expect(error).toBeInstanceOf(DocumentReadError);
    expect(error.message).toMatch(/cannot read broken\.json: invalid JSON/);
  });

  it("picks the reader by media type before extension, and names unsupported files", async () => {
    const [section] = await readDocument({
      source: "upload.bin",
      mediaType: "text/markdown; charset=utf-8",
      bytes: bytes("# H\nx"),
    });
    expect(section?.headingPath).toEqual(["H"]);
    await expect(readDocument({ source: "archive.zip", bytes: bytes("PK") })).rejects.toThrow(
      /archive\.zip: no reader/,
    );
    await expect(readDocument("/nonexistent/file.txt")).rejects.toThrow(/\/nonexistent\/file\.txt/);
  });

  it("keeps images as data blocks, with text only from a given OCR function", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    const [plain] = await readDocument({ source: "shot.png", bytes: png });
    expect(plain).toMatchObject({
      text: "",
      mediaType: "image/png",
      data: { base64: "iVBORw==", mediaType: "image/png" },
    });
    const [ocr] = await new ImageReader({ ocr: async () => " EXIT ONLY " }).read({
      source: "sign.jpg",
      bytes: png,
    });
    expect(ocr).toMatchObject({ text: "EXIT ONLY", mediaType: "image/jpeg" });
  });
});

describe("office readers on files made by the authoring libraries", () => {
  let dir: string;
  let files: Awaited<ReturnType<typeof generateDocuments>>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentscope-rag-docs-"));
    files = await generateDocuments(dir);
  }, 60_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads a PDF page by page with page numbers", async () => {
    const sections = await readDocument(files.pdf);
    expect(sections.map((s) => [s.page, s.text])).toEqual([
      [1, "The aurora reactor runs at forty kelvin."],
      [2, "Maintenance of the reactor happens every Tuesday."],
    ]);
    expect(sections[0]).toMatchObject({ source: files.pdf, mediaType: "application/pdf" });
  });

  it("reads a .docx with its headings", async () => {
    const sections = await readDocument(files.docx);
    expect(sections.map((s) => s.headingPath)).toEqual([
      ["Employee Handbook"],
      ["Employee Handbook", "Vacation"],
    ]);
    expect(sections[1]?.text).toContain("twenty-five vacation days");
  });

  it("reads an .xlsx as one section per sheet, rows as text", async () => {
    const sections = await readDocument(files.xlsx);
    expect(sections.map((s) => s.sheet)).toEqual(["Parts", "Staff"]);
    expect(sections[0]?.text).toBe("Part: flux capacitor | Count: 3\nPart: warp coil | Count: 12");
    expect(sections[1]?.text).toBe("Name: Ada | Role: engineer");
  });

  it("reads a .pptx as one section per slide", async () => {
    const sections = await readDocument(files.pptx);
    expect(sections.map((s) => [s.slide, s.text])).toEqual([
      [1, "Quarterly results: revenue grew nine percent"],
      [2, "Next steps: hire two designers"],
    ]);
  });

  it("refuses an encrypted PDF with an error naming the file", async () => {
    const error = await readDocument(files.encryptedPdf).catch((e) => e);
    expect(error).toBeInstanceOf(DocumentReadError);
    expect(error.message).toBe(
      `cannot read ${files.encryptedPdf}: the PDF is encrypted (password protected)`,
    );
  });

  it("names the file when a PDF, .docx, .xlsx or .pptx is corrupt", async () => {
    for (const name of ["broken.pdf", "broken.docx", "broken.xlsx", "broken.pptx"]) {
      const path = join(dir, name);
      await writeFile(path, "this is not an office document");
      const error = await readDocument(path).catch((e) => e);
      expect(error, name).toBeInstanceOf(DocumentReadError);
      expect(error.message).toContain(`cannot read ${path}`);
    }
  });
});
