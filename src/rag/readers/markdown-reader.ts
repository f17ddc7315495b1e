import { splitMarkdownByHeadings } from "../chunkers/markdown-headings.js";
import type { Section } from "../types.js";
import { decodeText, type Reader, type ReaderInput } from "./reader.js";

/** The text after a leading `---` front matter block (YAML), found by one search for its closing line. */
export function withoutFrontMatter(text: string): string {
  const opening = /^---\r?\n/.exec(text);
  if (!opening) return text;
  for (let at = opening[0].length; ; ) {
    const close = text.indexOf("\n---", at);
    if (close === -1) return text;
    const after = close + 4;
    const lineEnd = text.startsWith("\r\n", after) ? after + 2 : text[after] === "\n" ? after + 1 : -1;
    if (lineEnd !== -1) return text.slice(lineEnd);
    at = after;
  }
}

/** Markdown: one section per heading, with the heading path kept. */
export class MarkdownReader implements Reader {
  readonly name = "markdown";
  readonly extensions = ["md", "markdown", "mdx"];
  readonly mediaTypes = ["text/markdown", "text/x-markdown"];

  async read({ source, bytes }: ReaderInput): Promise<Section[]> {
    const text = withoutFrontMatter(decodeText(bytes));
    return splitMarkdownByHeadings(text).map((part) => ({
      source,
      mediaType: "text/markdown",
      text: part.text,
      ...(part.headingPath.length > 0 ? { headingPath: part.headingPath } : {}),
    }));
  }
}
