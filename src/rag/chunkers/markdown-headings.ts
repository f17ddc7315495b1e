/** A run of Markdown under one heading. */
export interface MarkdownPart {
  /** Enclosing headings, outermost first (starting from the given base path). */
  headingPath: string[];
  /** The heading line (if any) and the body up to the next heading. */
  text: string;
}

const FENCE = /^[ \t]{0,3}(```|~~~)/;

const isBlank = (c: string | undefined) => c === " " || c === "\t";

/**
 * An ATX heading line (`## Title ##`): its level and title, or undefined. A scan from each end of
 * the line, so a line costs its length whatever it holds (the regular expression this replaces, a
 * lazy title between two runs of optional blanks, took cubic time on a line of many blanks).
 */
export function atxHeading(line: string): { level: number; title: string } | undefined {
  let level = 0;
  while (level < line.length && line[level] === "#") level++;
  if (level < 1 || level > 6 || !isBlank(line[level])) return undefined;
  let start = level;
  while (isBlank(line[start])) start++;
  let end = line.length;
  while (end > start && isBlank(line[end - 1])) end--;
  let hashes = end;
  while (hashes > start && line[hashes - 1] === "#") hashes--;
  // A closing run of #s goes when blanks (or nothing) come before it: `# C#` keeps its title.
  if (hashes < end && (hashes === start || isBlank(line[hashes - 1]))) {
    end = hashes;
    while (end > start && isBlank(line[end - 1])) end--;
  }
  const title = line.slice(start, end);
  return title === "" ? undefined : { level, title };
}

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
    const heading = fence === undefined && !fenceMatch ? atxHeading(line) : undefined;
    if (heading) {
      flush();
      const { level, title } = heading;
      while (stack.length > 0 && (stack[stack.length - 1] as { level: number }).level >= level) stack.pop();
      stack.push({ level, title });
      path = [...basePath, ...stack.map((h) => h.title)];
    }
    lines.push(line);
  }
  flush();
  return parts;
}
