import { findFrom, type ScanCounter } from "./scan-counter.js";

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

/** The longest reference body looked at after `&` (`#x10FFFF` is 8; the longest named one here is 6). */
const MAX_REFERENCE = 32;
const isReferenceChar = (code: number) =>
  code === 35 || (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const REFERENCE = /^(?:#x[0-9a-f]+|#[0-9]+|[a-z]+)$/i;

function decoded(name: string): string | undefined {
  if (name[0] !== "#")
    return Object.hasOwn(NAMED_ENTITIES, name.toLowerCase()) ? NAMED_ENTITIES[name.toLowerCase()] : undefined;
  const code =
    name[1] === "x" || name[1] === "X"
      ? Number.parseInt(name.slice(2), 16)
      : Number.parseInt(name.slice(1), 10);
  return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

/**
 * Decodes named (common) and numeric character references, in one pass: after each `&` at most
 * MAX_REFERENCE characters are looked at for the `;`, so the work is linear in the text's length.
 */
export function decodeEntities(text: string, counter?: ScanCounter): string {
  let out = "";
  let at = 0;
  for (;;) {
    const amp = findFrom(text, "&", at, counter);
    if (amp === -1) return out + text.slice(at);
    out += text.slice(at, amp);
    // The reference's characters (letters, digits, #), at most MAX_REFERENCE of them, then `;`.
    let end = amp + 1;
    const limit = Math.min(text.length, amp + 1 + MAX_REFERENCE);
    while (end < limit && isReferenceChar(text.charCodeAt(end))) end++;
    if (counter) counter.steps += end - amp;
    const name = text[end] === ";" ? text.slice(amp + 1, end) : undefined;
    const value = name !== undefined && REFERENCE.test(name) ? decoded(name) : undefined;
    if (value === undefined || name === undefined) {
      out += "&";
      at = amp + 1;
    } else {
      out += value;
      at = amp + 2 + name.length;
    }
  }
}
