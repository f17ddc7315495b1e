import { decodeEntities } from "./html-entities.js";
import { findFrom, type ScanCounter } from "./scan-counter.js";

/** The text between two headings, and the heading that starts it (none before the first). */
export interface HtmlPart {
  heading?: { level: number; title: string };
  text: string;
}

/** Elements whose whole content is dropped. */
const DROPPED = new Set(["script", "style", "noscript", "template", "svg", "head"]);
/** Elements that break the text into lines. */
const BLOCKS = new Set([
  "p",
  "div",
  "br",
  "li",
  "ul",
  "ol",
  "tr",
  "table",
  "section",
  "article",
  "header",
  "footer",
  "blockquote",
  "pre",
  "hr",
  "dd",
  "dt",
  "dl",
  "main",
  "nav",
  "aside",
  "figure",
  "figcaption",
]);
const CELLS = new Set(["td", "th"]);

const isLetter = (code: number) => (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isNameChar = (code: number) => isLetter(code) || (code >= 48 && code <= 57);

/** The lower-case tag name starting at `from` (letters and digits). */
function tagName(html: string, from: number, end: number, counter: ScanCounter | undefined): string {
  let stop = from;
  while (stop < end && isNameChar(html.charCodeAt(stop))) stop++;
  if (counter) counter.steps += stop - from;
  return html.slice(from, stop).toLowerCase();
}

/** Where the content of a dropped element ends: after its `</name ...>`, or the end of the text. */
function afterClosing(html: string, name: string, from: number, counter: ScanCounter | undefined): number {
  for (let at = from; ; ) {
    const close = findFrom(html, "</", at, counter);
    if (close === -1) return html.length;
    const after = close + 2 + name.length;
    if (
      html.slice(close + 2, after).toLowerCase() === name &&
      !isNameChar(html.charCodeAt(after)) // `</scripts>` does not close a script
    ) {
      const end = findFrom(html, ">", after, counter);
      return end === -1 ? html.length : end + 1;
    }
    at = close + 2;
  }
}

/** Text of an HTML fragment's pieces: spaces collapsed, at most one blank line, trimmed. */
function cleanText(pieces: readonly string[]): string {
  return pieces
    .join("")
    .replace(/[ \t\f\v\u00a0]+/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * Splits HTML at `h1`–`h6` headings into clean text, in one pass over the text: each search starts
 * where the previous one stopped and nothing is searched twice, so the work is linear in the
 * document's length whatever it holds (unterminated comments, tags or headings included, which made
 * the regular expressions this replaces backtrack quadratically). Comments and the content of
 * script, style, noscript, template, svg and head are dropped; block elements become line breaks,
 * table cells ` | `; entities are decoded. As in a browser, an unterminated comment, tag or dropped
 * element runs to the end of the text. A heading left open at the end stays part of the text.
 * Parts may be empty (the caller drops them).
 */
export function splitHtmlByHeadings(html: string, counter?: ScanCounter): HtmlPart[] {
  const parts: HtmlPart[] = [];
  let body: string[] = [];
  let partHeading: HtmlPart["heading"];
  let heading: { level: number; pieces: string[] } | undefined;
  const out = () => heading?.pieces ?? body;
  const text = (from: number, to: number) => {
    if (to > from) out().push(decodeEntities(html.slice(from, to), counter));
  };
  let at = 0;
  while (at < html.length) {
    const open = findFrom(html, "<", at, counter);
    if (open === -1) {
      text(at, html.length);
      break;
    }
    text(at, open);
    const next = html.charCodeAt(open + 1);
    const closing = next === 47; // "/"
    if (html.startsWith("<!--", open)) {
      const end = findFrom(html, "-->", open + 4, counter);
      at = end === -1 ? html.length : end + 3;
      continue;
    }
    if (next === 33 || next === 63 || (closing && isLetter(html.charCodeAt(open + 2))) || isLetter(next)) {
      // <!DOCTYPE ...>, <?xml ...?>, </tag ...>, <tag ...>
      const end = findFrom(html, ">", open + 1, counter);
      if (end === -1) break;
      at = end + 1;
      if (next === 33 || next === 63) continue;
      const name = tagName(html, open + (closing ? 2 : 1), end, counter);
      const level = /^h[1-6]$/.test(name) ? Number(name[1]) : 0;
      if (!closing && DROPPED.has(name)) {
        if (html.charCodeAt(end - 1) !== 47) at = afterClosing(html, name, at, counter); // not `<svg/>`
      } else if (!closing && level > 0 && heading === undefined) {
        heading = { level, pieces: [] };
      } else if (closing && level > 0 && heading?.level === level) {
        parts.push({ ...(partHeading ? { heading: partHeading } : {}), text: cleanText(body) });
        partHeading = { level, title: cleanText(heading.pieces).replace(/\s+/g, " ") };
        heading = undefined;
        body = [];
      } else if (CELLS.has(name) && !closing) out().push(" | ");
      else if (BLOCKS.has(name)) out().push("\n");
      continue;
    }
    out().push("<"); // a `<` that starts no tag is text
    at = open + 1;
  }
  if (heading) body = body.concat(heading.pieces); // a heading never closed is text
  parts.push({ ...(partHeading ? { heading: partHeading } : {}), text: cleanText(body) });
  return parts;
}
