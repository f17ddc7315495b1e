import { AgentScopeError, type ErrorType } from "../../message/index.js";
/** A front-matter value: a string, a list of strings, or a one-level map of strings. */
export type FrontMatterValue = string | string[] | Record<string, string>;

export interface FrontMatter {
  data: Record<string, FrontMatterValue>;
  /** The text after the closing `---`, without leading blank lines. */
  body: string;
}

/** A SKILL.md (or other) file whose front matter cannot be read; the message names the file and line. */
export class FrontMatterError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_request";
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = "FrontMatterError";
  }
}

const KEY_LINE = /^([A-Za-z0-9_][A-Za-z0-9_.-]*):(?:[ \t]+(.*))?$/;

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Where a quoted string that opens `text` closes (index of the closing quote), or -1. */
function closingQuote(text: string): number {
  const quote = text[0];
  for (let i = 1; i < text.length; i += 1) {
    if (quote === '"' && text[i] === "\\") i += 1;
    else if (text[i] === quote) {
      if (quote === "'" && text[i + 1] === "'") i += 1;
      else return i;
    }
  }
  return -1;
}

/** A scalar as written: quoted ("..." with JSON escapes, '...' with '' for '), or plain; a trailing # comment is dropped. */
function scalar(raw: string, fail: (detail: string) => never): string {
  const text = raw.trim();
  if (!text.startsWith('"') && !text.startsWith("'")) return text.replace(/\s+#.*$/, "");
  const close = closingQuote(text);
  const rest = close < 0 ? "" : text.slice(close + 1).trim();
  if (close < 0 || (rest !== "" && !rest.startsWith("#"))) {
    fail(`unterminated or invalid quoted string ${text}`);
  }
  const quoted = text.slice(0, close + 1);
  if (quoted.startsWith("'")) return quoted.slice(1, -1).replaceAll("''", "'");
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return fail(`invalid escape in double-quoted string ${quoted}`);
  }
}

/** The lines of a `|` (kept) or `>` (folded) block scalar, dedented; trailing newlines dropped. */
function blockScalar(lines: string[], folded: boolean): string {
  const indent = Math.min(...lines.filter((l) => l.trim() !== "").map(indentOf));
  const dedented = lines.map((line) => line.slice(indent));
  if (!folded) return dedented.join("\n").trimEnd();
  return dedented
    .join("\n")
    .trimEnd()
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.replaceAll("\n", " "))
    .join("\n");
}

/**
 * Parses the YAML subset skills use, between `---` lines at the top of the file: `key: value`
 * scalars (plain, quoted, `|` and `>` blocks, continuation lines), lists (`- a` lines or `[a, b]`)
 * and one-level maps of scalars. Anything else is a FrontMatterError naming the file and line.
 */
export function parseFrontMatter(text: string, file: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") {
    throw new FrontMatterError(
      file,
      "must start with a front matter block: a line `---`, `name:` and `description:`, then `---`",
    );
  }
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === "---");
  if (end < 0) throw new FrontMatterError(file, "the front matter block is not closed with a `---` line");

  const data: Record<string, FrontMatterValue> = {};
  let index = 1;
  while (index < end) {
    const line = lines[index] ?? "";
    const lineNo = index + 1;
    const fail = (detail: string): never => {
      throw new FrontMatterError(file, `line ${lineNo}: ${detail}`);
    };
    index += 1;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    if (indentOf(line) > 0) fail(`unexpected indentation: ${line.trim()}`);
    const match = KEY_LINE.exec(line.trimEnd());
    if (!match) fail(`expected \`key: value\`, got: ${line.trim()}`);
    const [, key = "", rawValue = ""] = match ?? [];
    if (key in data) fail(`"${key}" appears twice`);

    // The indented (or blank) lines that belong to this key.
    const nested: string[] = [];
    while (index < end && ((lines[index] ?? "").trim() === "" || indentOf(lines[index] ?? "") > 0)) {
      nested.push(lines[index] ?? "");
      index += 1;
    }
    while (nested.length > 0 && nested[nested.length - 1]?.trim() === "") nested.pop();
    const value = rawValue.trim();

    if (/^[|>][-+]?$/.test(value)) {
      data[key] = nested.length === 0 ? "" : blockScalar(nested, value.startsWith(">"));
    } else if (value.startsWith("[")) {
      if (!value.endsWith("]")) fail(`unterminated list for "${key}"`);
      const inner = value.slice(1, -1).trim();
      data[key] = inner === "" ? [] : inner.split(",").map((item) => scalar(item, fail));
    } else if (value !== "") {
      const continuation = nested.filter((l) => l.trim() !== "").map((l) => l.trim());
      data[key] = [scalar(value, fail), ...continuation].join(" ");
    } else {
      const items = nested.filter((l) => l.trim() !== "" && !l.trimStart().startsWith("#"));
      if (items.length === 0) data[key] = "";
      else if (items.every((l) => l.trimStart().startsWith("- ") || l.trim() === "-")) {
        data[key] = items.map((l) => scalar(l.trimStart().slice(1), fail));
      } else {
        const map: Record<string, string> = {};
        for (const item of items) {
          const entry = KEY_LINE.exec(item.trim());
          if (!entry) fail(`expected \`key: value\` or \`- item\` under "${key}", got: ${item.trim()}`);
          map[entry?.[1] ?? ""] = scalar(entry?.[2] ?? "", fail);
        }
        data[key] = map;
      }
    }
  }
  const body = lines
    .slice(end + 1)
    .join("\n")
    .replace(/^\s*\n/, "");
  return { data, body };
}
