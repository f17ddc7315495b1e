import { splitMarkdownByHeadings } from "../chunkers/markdown-headings.js";
import type { Section } from "../types.js";
import { decodeText, type Reader, type ReaderInput } from "./reader.js";

/** Markdown: one section per heading, with the heading path kept. */
export class MarkdownReader implements Reader {
  readonly name = "markdown";
  readonly extensions = ["md", "markdown", "mdx"];
  readonly mediaTypes = ["text/markdown", "text/x-markdown"];

  async read({ source, bytes }: ReaderInput): Promise<Section[]> {
    const text = decodeText(bytes).replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, "");
    return splitMarkdownByHeadings(text).map((part) => ({
      source,
      mediaType: "text/markdown",
      text: part.text,
      ...(part.headingPath.length > 0 ? { headingPath: part.headingPath } : {}),
    }));
  }
}
