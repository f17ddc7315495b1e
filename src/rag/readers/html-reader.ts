import type { Section } from "../types.js";
import { decodeText, type Reader, type ReaderInput } from "./reader.js";

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  copy: "©",
  rsquo: "’",
  lsquo: "‘",
  rdquo: "”",
  ldquo: "“",
};

/** Decodes named (common) and numeric character references. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X"
          ? Number.parseInt(name.slice(2), 16)
          : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const BLOCK_TAGS =
  /<\/?(p|div|br|li|ul|ol|tr|table|section|article|header|footer|blockquote|pre|hr|dd|dt|dl|main|nav|aside|figure|figcaption)\b[^>]*>/gi;

/** Text of an HTML fragment: tags dropped, block elements become line breaks, entities decoded. */
function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<(td|th)\b[^>]*>/gi, " | ")
      .replace(BLOCK_TAGS, "\n")
      .replace(/<[^>]+>/g, ""),
  )
    .replace(/[ \t\f\v\u00a0]+/g, " ")
    .replace(/ *\n */g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * HTML: scripts, styles and comments dropped, the rest turned into clean text, one section per
 * heading (`h1`–`h6`) with the heading path kept. The `<title>` starts the path when there is no h1.
 */
export class HtmlReader implements Reader {
  readonly name = "html";
  readonly extensions = ["html", "htm", "xhtml"];
  readonly mediaTypes = ["text/html", "application/xhtml+xml"];

  async read({ source, bytes }: ReaderInput): Promise<Section[]> {
    const html = decodeText(bytes)
      .replace(/<!--[\s\S]*?-->/g, "")
      .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, "");
    const sections: Section[] = [];
    const stack: { level: number; title: string }[] = [];
    const headingPattern = /<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi;
    let last = 0;
    let path: string[] = [];
    const push = (fragment: string, heading?: string) => {
      const body = htmlToText(fragment);
      const text = heading ? (body ? `${heading}\n\n${body}` : heading) : body;
      if (text !== "") {
        sections.push({
          source,
          mediaType: "text/html",
          text,
          ...(path.length > 0 ? { headingPath: path } : {}),
        });
      }
    };
    let currentHeading: string | undefined;
    for (let match = headingPattern.exec(html); match; match = headingPattern.exec(html)) {
      push(html.slice(last, match.index), currentHeading);
      const level = Number(match[1]);
      const title = htmlToText(match[2] as string).replace(/\s+/g, " ");
      while (stack.length > 0 && (stack[stack.length - 1] as { level: number }).level >= level) stack.pop();
      stack.push({ level, title });
      path = stack.map((h) => h.title);
      currentHeading = title;
      last = match.index + match[0].length;
    }
    push(html.slice(last), currentHeading);
    return sections;
  }
}
