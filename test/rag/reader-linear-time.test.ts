import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { atxHeading, splitMarkdownByHeadings } from "../../src/rag/chunkers/markdown-headings.js";
import { splitHtmlByHeadings } from "../../src/rag/readers/html-scanner.js";
import {
  decodeEntities,
  HtmlReader,
  MarkdownReader,
  withoutFrontMatter,
} from "../../src/rag/readers/index.js";
import type { ScanCounter } from "../../src/rag/readers/scan-counter.js";

/**
 * Hostile documents: a few KB of markup built to make a backtracking regular expression explode.
 * The readers now scan linearly; these tests check the result and count the scanner's steps on an
 * input of size n and 8n (no clock): the work must grow like the input, not like its square.
 */

const encode = (text: string) => new TextEncoder().encode(text);

/** Steps for the input built at sizes n and 8n. */
function steps(build: (n: number) => string, n: number, scan: (text: string, c: ScanCounter) => void) {
  const at = (size: number) => {
    const counter = { steps: 0 };
    const text = build(size);
    scan(text, counter);
    return { steps: counter.steps, length: text.length };
  };
  return { small: at(n), large: at(8 * n) };
}

const HOSTILE_HTML: Record<string, (n: number) => string> = {
  "unterminated comments": (n) => "<!--".repeat(n),
  "unterminated scripts": (n) => "<script>".repeat(n),
  "unterminated headings": (n) => "<h1>x".repeat(n),
  "unclosed tags": (n) => "<a".repeat(n),
  "closing tags with no name end": (n) => "</h1".repeat(n),
  "half entities": (n) => "&#x1".repeat(n),
  "cells without end": (n) => "<td".repeat(n),
  "nested headings never closed": (n) => "<h2><h3><h4>".repeat(n),
  "script closers that do not close": (n) => `<script>${"</scripts>".repeat(n)}`,
  "spaces and newlines": (n) => " \n \t ".repeat(n),
};

describe("the HTML reader scans in linear time", () => {
  for (const [name, build] of Object.entries(HOSTILE_HTML)) {
    it(`${name}: 8x the input is at most ~8x the steps, and about one step a character`, () => {
      const { small, large } = steps(build, 2000, (text, c) => splitHtmlByHeadings(text, c));
      expect(small.steps).toBeLessThanOrEqual(4 * small.length + 16);
      expect(large.steps).toBeLessThanOrEqual(4 * large.length + 16);
      expect(large.steps).toBeLessThanOrEqual(8.5 * small.steps + 16);
    });
  }

  it("128 KB of hostile HTML reads to the right text", async () => {
    const reader = new HtmlReader();
    const read = async (html: string) =>
      (await reader.read({ source: "x.html", bytes: encode(html) })).map((s) => s.text);
    const size = 128 * 1024;
    expect(await read(`<p>kept</p>${"<!--".repeat(size / 4)}`)).toEqual(["kept"]);
    expect(await read(`<p>kept</p>${"<script>".repeat(size / 8)}`)).toEqual(["kept"]);
    expect(await read(`<h1>Title</h1>${"<h2>x".repeat(size / 5)}`)).toEqual([
      `Title\n\n${"x".repeat(size / 5)}`,
    ]);
    expect(await read(`<p>a &amp; b</p>${"&#x1".repeat(size / 4)}`)).toEqual([
      `a & b\n${"&#x1".repeat(size / 4)}`,
    ]);
    expect(await read(`<p>kept</p><a${" x".repeat(size / 2)}`)).toEqual(["kept"]);
  });

  it("still reads ordinary HTML as before: headings, paths, cells, entities, dropped elements", async () => {
    const html = `<!doctype html><html><head><title>T</title><style>p{}</style></head><body>
      <h1>Guide</h1><p>Intro &amp; more&nbsp;here</p><!-- note --><script>alert(1)</script>
      <h2>Table</h2><table><tr><th>a</th><td>1</td></tr></table><svg/><p>after svg</p>
      <h2>Other</h2>x &#65;&#x42; &bogus; &amp</body></html>`;
    const sections = await new HtmlReader().read({ source: "g.html", bytes: encode(html) });
    expect(sections.map((s) => [s.headingPath, s.text])).toEqual([
      [["Guide"], "Guide\n\nIntro & more here"],
      [["Guide", "Table"], "Table\n\n| a | 1\n\nafter svg"],
      [["Guide", "Other"], "Other\n\nx AB &bogus; &amp"],
    ]);
  });

  it("entities decode in one pass with a bounded look-ahead", () => {
    expect(decodeEntities("&lt;&#x41;&#66;&amp;amp; &unknown; &#x110000; &")).toBe(
      "<AB&amp; &unknown; &#x110000; &",
    );
    const counter = { steps: 0 };
    const text = `&${"a".repeat(100_000)};`;
    expect(decodeEntities(text, counter)).toBe(text);
    expect(counter.steps).toBeLessThanOrEqual(2 * text.length);
  });
});

describe("the Markdown reader parses headings in linear time", () => {
  // Each line below took the old heading expression (cubic on runs of blanks) seconds to minutes.
  const hostileLines = (n: number) => [
    `# a${" ".repeat(n)}#${" ".repeat(n)}\u0001`,
    `# ${" \t".repeat(n)}x${" \t".repeat(n)}#`,
    `###### ${"# ".repeat(n)}`,
  ];

  it("3 KB (and 24 KB) lines of blanks and #s give the right headings", () => {
    for (const n of [3000, 24_000]) {
      const [first, second, third] = hostileLines(n).map(atxHeading);
      expect(first?.title).toBe(`a${" ".repeat(n)}#${" ".repeat(n)}\u0001`);
      expect(second).toEqual({ level: 1, title: "x" });
      expect(third?.level).toBe(6);
    }
  });

  it("a 3 KB hostile document reads to its sections", async () => {
    const lines = hostileLines(1000);
    const doc = `---\ntitle: x\n---\n${lines.join("\n")}\nbody\n${"#".repeat(7)} not a heading\n## C#`;
    const sections = await new MarkdownReader().read({ source: "x.md", bytes: encode(doc) });
    const titles = lines.map((line) => atxHeading(line)?.title);
    expect(sections.map((s) => s.headingPath)).toEqual([
      [titles[0]],
      [titles[1]],
      [titles[1], titles[2]],
      [titles[1], "C#"],
    ]);
    expect(sections[2]?.text).toContain("####### not a heading");
  });

  it("front matter: dropped when closed, kept when not, and never searched twice", () => {
    expect(withoutFrontMatter("---\ntitle: x\n---\n# Body")).toBe("# Body");
    expect(withoutFrontMatter("---\r\ntitle: x\r\n---\r\n# Body")).toBe("# Body");
    expect(withoutFrontMatter("---\ntitle: x\n---not the end\n---\nrest")).toBe("rest");
    expect(withoutFrontMatter("no front matter\n---\n")).toBe("no front matter\n---\n");
    const unclosed = `---\n${"\n---x".repeat(50_000)}`;
    expect(withoutFrontMatter(unclosed)).toBe(unclosed);
  });

  it("closing #s, blank titles and code fences behave as before", () => {
    expect(atxHeading("## Title ##")).toEqual({ level: 2, title: "Title" });
    expect(atxHeading("# C#")).toEqual({ level: 1, title: "C#" });
    expect(atxHeading("#nospace")).toBeUndefined();
    expect(atxHeading("####### seven")).toBeUndefined();
    expect(atxHeading("#   ")).toBeUndefined();
    expect(splitMarkdownByHeadings("```\n# not\n```\n# yes\ntext").map((p) => p.headingPath)).toEqual([
      [],
      ["yes"],
    ]);
  });

  it("the readers' sources hold no lazy or nested-quantifier pattern over whole documents", async () => {
    for (const file of [
      "src/rag/readers/html-reader.ts",
      "src/rag/readers/html-scanner.ts",
      "src/rag/readers/html-entities.ts",
      "src/rag/chunkers/markdown-headings.ts",
      "src/rag/readers/markdown-reader.ts",
    ]) {
      const source = await readFile(join(import.meta.dirname, "../..", file), "utf8");
      expect(source, file).not.toMatch(/[*+}]\?/); // no lazy quantifier (`.*?`, `[\s\S]*?`, `.+?`)
    }
  });
});
