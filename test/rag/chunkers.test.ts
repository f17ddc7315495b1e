import { describe, expect, it } from "vitest";
import {
  ApproximateTokenChunker,
  approximateTokens,
  chunkSections,
  ExactTokenChunker,
  MarkdownChunker,
  ParagraphChunker,
  RecursiveChunker,
} from "../../src/rag/index.js";

const words = (n: number, prefix = "w") => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(" ");

describe("chunkers", () => {
  it("approximate-token: windows of at most size bytes/4 with the overlap carried over", () => {
    const text = words(300); // ~1,700 bytes
    const chunker = new ApproximateTokenChunker({ size: 100, overlap: 20 });
    const pieces = chunker.split(text);
    expect(pieces.length).toBeGreaterThan(3);
    for (const piece of pieces) expect(approximateTokens(piece.text)).toBeLessThanOrEqual(100);
    const first = pieces[0]!.text.split(" ");
    const second = pieces[1]!.text.split(" ");
    // The second window starts inside the first: the overlap.
    expect(first).toContain(second[0]);
    expect(second[0]).not.toBe(first[0]);
    // Nothing lost: every word appears somewhere.
    const seen = new Set(pieces.flatMap((p) => p.text.split(" ")));
    expect(seen.size).toBe(300);
  });

  it("defaults to the reference's size 512 and overlap 50, and validates them", () => {
    const chunker = new ApproximateTokenChunker();
    expect([chunker.size, chunker.overlap]).toEqual([512, 50]);
    expect(() => new ApproximateTokenChunker({ size: 10, overlap: 10 })).toThrow(/overlap/);
    expect(() => new ApproximateTokenChunker({ size: 0 })).toThrow(/size/);
  });

  it("exact-token: windows of exactly size tiktoken tokens", async () => {
    const chunker = new ExactTokenChunker({ size: 10, overlap: 2 });
    const pieces = await chunker.split(words(40));
    const { getEncoding } = await import("js-tiktoken");
    const enc = getEncoding("cl100k_base");
    expect(pieces.length).toBeGreaterThan(3);
    for (const piece of pieces.slice(0, -1)) expect(enc.encode(piece.text).length).toBeGreaterThanOrEqual(9);
    for (const piece of pieces) expect(enc.encode(piece.text).length).toBeLessThanOrEqual(10);
  });

  it("paragraph: packs paragraphs up to size and never cuts one that fits", () => {
    const text = ["Alpha one.", "Beta two.", "Gamma three.", words(200, "long")].join("\n\n");
    const pieces = new ParagraphChunker({ size: 6 }).split(text);
    expect(pieces[0]?.text).toBe("Alpha one.\n\nBeta two.");
    expect(pieces[1]?.text).toBe("Gamma three.");
    expect(pieces.length).toBeGreaterThan(3);
    for (const piece of pieces) expect(approximateTokens(piece.text)).toBeLessThanOrEqual(6);
  });

  it("recursive: prefers paragraph, then line, then sentence boundaries", () => {
    const text = "First sentence here. Second sentence here.\n\nA new paragraph that is short.";
    const pieces = new RecursiveChunker({ size: 8, overlap: 0 }).split(text);
    expect(pieces.map((p) => p.text)).toEqual([
      "First sentence here.",
      "Second sentence here.",
      "A new paragraph that is short.",
    ]);
  });

  it("markdown: never crosses a heading and records the heading path", () => {
    const pieces = new MarkdownChunker({ size: 50, overlap: 0 }).split(
      "# A\ntext a\n## B\ntext b\n# C\ntext c",
      {
        headingPath: ["Doc"],
      },
    );
    expect(pieces.map((p) => [p.headingPath, p.text])).toEqual([
      [["Doc", "A"], "# A\ntext a"],
      [["Doc", "A", "B"], "## B\ntext b"],
      [["Doc", "C"], "# C\ntext c"],
    ]);
  });

  it("chunkSections: chunks stay inside sections, keep location and metadata, and are numbered per document", async () => {
    const chunks = await chunkSections(
      [
        { source: "a.pdf", page: 1, text: words(30, "p1_"), metadata: { lang: "en" } },
        { source: "a.pdf", page: 2, text: "tail" },
        { source: "a.pdf", page: 3, text: "   " },
      ],
      new ApproximateTokenChunker({ size: 20, overlap: 0 }),
      "doc-1",
      { tenant: "t1", lang: "de" },
    );
    expect(chunks.map((c) => [c.chunkIndex, c.page])).toEqual([
      [0, 1],
      [1, 1],
      [2, 1],
      [3, 2],
    ]);
    expect(chunks.every((c) => c.documentId === "doc-1" && c.source === "a.pdf")).toBe(true);
    expect(chunks[0]?.metadata).toEqual({ tenant: "t1", lang: "en" });
    expect(chunks[3]).toMatchObject({ text: "tail", metadata: { tenant: "t1", lang: "de" } });
    expect(chunks.some((c) => c.text.includes("p1_") && c.text.includes("tail"))).toBe(false);
  });
});
