/** A run of Markdown under one heading. */
export interface MarkdownPart {
  /** Enclosing headings, outermost first (starting from the given base path). */
  headingPath: string[];
  /** The heading line (if any) and the body up to the next heading. */
  text: string;
}

const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$/;
const FENCE = /^[ \t]{0,3}(```|~~~)/;

/**
 * Splits Markdown at ATX headings (`#` to `######`, ignoring ones inside code fences), tracking the
 * heading path. Text before the first heading keeps the base path. Empty parts are dropped.
 */
export function splitMarkdownByHeadings(text: string, basePath: readonly string[] = []): MarkdownPart[] {
  const parts: MarkdownPart[] = [];
  const stack: { level: number; title: string }[] = [];
  let lines: string[] = [];
  let path = [...basePath];
  let fence: string | undefined;
  const flush = () => {
    const body = lines.join("\n").trim();
    if (body !== "") parts.push({ headingPath: path, text: body });
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      if (fence === undefined) fence = fenceMatch[1];
      else if (fence === fenceMatch[1]) fence = undefined;
    }
    const heading = fence === undefined && !fenceMatch ? HEADING.exec(line) : null;
    if (heading) {
      flush();
      const level = (heading[1] as string).length;
      while (stack.length > 0 && (stack[stack.length - 1] as { level: number }).level >= level) stack.pop();
      stack.push({ level, title: heading[2] as string });
      path = [...basePath, ...stack.map((h) => h.title)];
    }
    lines.push(line);
  }
  flush();
  return parts;
}
