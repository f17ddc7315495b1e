import type { Section } from "../types.js";
import { splitHtmlByHeadings } from "./html-scanner.js";
import { decodeText, type Reader, type ReaderInput } from "./reader.js";

export { decodeEntities } from "./html-entities.js";

/**
 * HTML: scripts, styles and comments dropped, the rest turned into clean text, one section per
 * heading (`h1`–`h6`) with the heading path kept. Parsed by a linear scanner (html-scanner.ts): no
 * document, however malformed, costs more than a pass over it.
 */
export class HtmlReader implements Reader {
  readonly name = "html";
  readonly extensions = ["html", "htm", "xhtml"];
  readonly mediaTypes = ["text/html", "application/xhtml+xml"];

  async read({ source, bytes }: ReaderInput): Promise<Section[]> {
    const sections: Section[] = [];
    const stack: { level: number; title: string }[] = [];
    let path: string[] = [];
    for (const part of splitHtmlByHeadings(decodeText(bytes))) {
      if (part.heading) {
        const { level, title } = part.heading;
        while (stack.length > 0 && (stack[stack.length - 1] as { level: number }).level >= level) stack.pop();
        stack.push({ level, title });
        path = stack.map((h) => h.title);
      }
      const heading = part.heading?.title;
      const text = heading ? (part.text ? `${heading}\n\n${part.text}` : heading) : part.text;
      if (text !== "")
        sections.push({
          source,
          mediaType: "text/html",
          text,
          ...(path.length > 0 ? { headingPath: path } : {}),
        });
    }
    return sections;
  }
}
