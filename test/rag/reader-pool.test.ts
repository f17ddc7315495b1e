import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { DocumentLimitError, DocumentReadError, RagError } from "../../src/rag/errors.js";
import { HtmlReader, MarkdownReader, readDocument } from "../../src/rag/readers/index.js";
import { ReaderPool } from "../../src/rag/readers/reader-pool.js";
import { generateDocuments } from "./fixtures/generate-documents.js";
import { buildZip } from "./fixtures/zip-builder.js";

/** Documents read in worker threads: off the event loop, under time and memory limits. */

const encode = (text: string) => new TextEncoder().encode(text);
const pools: ReaderPool[] = [];
const pool = (options: ConstructorParameters<typeof ReaderPool>[0] = {}) => {
  const created = new ReaderPool(options);
  pools.push(created);
  return created;
};
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

describe("ReaderPool", () => {
  const shared = pool({ size: 2 });

  it("reads in a worker thread: the readers of this thread never run", async () => {
    const html = vi.spyOn(HtmlReader.prototype, "read");
    const markdown = vi.spyOn(MarkdownReader.prototype, "read");
    const [page, notes] = await Promise.all([
      shared.read({ source: "a.html", bytes: encode("<h1>Title</h1><p>body &amp; more</p>") }),
      shared.read({ source: "b.md", bytes: encode("# Notes\nsome text") }),
    ]);
    expect(page).toEqual([
      { source: "a.html", mediaType: "text/html", text: "Title\n\nbody & more", headingPath: ["Title"] },
    ]);
    expect(notes?.[0]?.headingPath).toEqual(["Notes"]);
    expect(html).not.toHaveBeenCalled();
    expect(markdown).not.toHaveBeenCalled();
    html.mockRestore();
    markdown.mockRestore();
  });

  it("every built-in reader works inside the worker: PDF, .docx, .xlsx, .pptx read as in this thread", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agentscope-pool-docs-"));
    try {
      const files = await generateDocuments(dir);
      for (const path of [files.pdf, files.docx, files.xlsx, files.pptx]) {
        const input = { source: path, bytes: new Uint8Array(await readFile(path)) };
        expect(await shared.read(input), path).toEqual(await readDocument(input));
      }
      const locked = await shared
        .read({ source: "locked.pdf", bytes: new Uint8Array(await readFile(files.encryptedPdf)) })
        .catch((e) => e);
      expect(locked).toBeInstanceOf(DocumentReadError);
      expect(locked.message).toContain("encrypted");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("a failure in the worker comes back as the same typed error, naming the file", async () => {
    const bad = await shared.read({ source: "broken.json", bytes: encode("{not json") }).catch((e) => e);
    expect(bad).toBeInstanceOf(DocumentReadError);
    expect(bad.message).toMatch(/^cannot read broken\.json: invalid JSON/);
    const bomb = buildZip([{ name: "word/document.xml", data: new Uint8Array(8 * 1024 * 1024) }]);
    const limited = await shared.read({ source: "bomb.docx", bytes: bomb }).catch((e) => e);
    expect(limited).toBeInstanceOf(DocumentLimitError);
    expect([limited.limit, limited.value]).toEqual(["maxCompressionRatio", 100]);
    // The worker that reported them is still good for the next document.
    expect(await shared.read({ source: "ok.txt", bytes: encode("fine") })).toHaveLength(1);
  });

  it("a read over timeoutMs ends its worker with a DocumentLimitError, and the pool goes on", async () => {
    // 1 ms: the worker cannot even start in that time; the read must be cut off, not awaited.
    const slow = pool({ size: 1, timeoutMs: 1 });
    const error = await slow.read({ source: "slow.txt", bytes: encode("text") }).catch((e) => e);
    expect(error).toBeInstanceOf(DocumentLimitError);
    expect(error.message).toBe("cannot read slow.txt: reading it took longer than 1 ms (limit timeoutMs: 1)");
    const again = await slow.read({ source: "slow2.txt", bytes: encode("text") }).catch((e) => e);
    expect(again.limit).toBe("timeoutMs");
  });

  it("a read that needs more heap than maxMemoryMb ends its worker, not this process", async () => {
    const small = pool({ size: 1, maxMemoryMb: 48, timeoutMs: 60_000 });
    expect(await small.read({ source: "small.json", bytes: encode('[{"a":1}]') })).toHaveLength(1);
    // About 700,000 records: far more heap than 48 MB once parsed and flattened.
    const records = `[${'{"name":"x","n":1},'.repeat(700_000)}{"name":"y","n":2}]`;
    const error = await small.read({ source: "huge.json", bytes: encode(records) }).catch((e) => e);
    expect(error).toBeInstanceOf(DocumentLimitError);
    expect([error.limit, error.value]).toEqual(["maxMemoryMb", 48]);
    expect(error.message).toContain("cannot read huge.json");
    expect(await small.read({ source: "after.json", bytes: encode('{"b":2}') })).toHaveLength(1);
  });

  it("refuses nonsense options and reads after close", async () => {
    expect(() => new ReaderPool({ size: 0 })).toThrow(/size must be a positive integer/);
    expect(() => new ReaderPool({ timeoutMs: -1 })).toThrow(RagError);
    const closed = new ReaderPool();
    await closed.close();
    await expect(closed.read({ source: "x.txt", bytes: encode("x") })).rejects.toThrow(/closed/);
  });
});
