/** One line of a diff: kept, removed or added; `skipped` stands for unchanged lines left out. */
export interface DiffLine {
  kind: "same" | "removed" | "added" | "skipped";
  text: string;
}

/** Lines beyond which the middle part is not diffed line by line (shown as removed then added). */
const MAX_DIFFED_LINES = 2000;

/** The lines of a text; a final newline ends the last line rather than starting an empty one. */
const linesOf = (text: string) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));

/**
 * A line diff: the common head and tail are kept as they are, the middle is diffed by longest
 * common subsequence (a middle of more than 2,000 lines is shown as all removed, then all added).
 */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = linesOf(before);
  const b = linesOf(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  const same = (lines: string[]) => lines.map((text): DiffLine => ({ kind: "same", text }));
  return [
    ...same(a.slice(0, head)),
    ...middleDiff(a.slice(head, a.length - tail), b.slice(head, b.length - tail)),
    ...same(a.slice(a.length - tail)),
  ];
}

function middleDiff(a: string[], b: string[]): DiffLine[] {
  if (a.length > MAX_DIFFED_LINES || b.length > MAX_DIFFED_LINES)
    return [
      ...a.map((text): DiffLine => ({ kind: "removed", text })),
      ...b.map((text): DiffLine => ({ kind: "added", text })),
    ];
  const cols = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * cols);
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lcs[i * cols + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * cols + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * cols + j] ?? 0, lcs[i * cols + j + 1] ?? 0);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: "same", text: a[i] as string });
      i++;
      j++;
    } else if (
      i < a.length &&
      (j >= b.length || (lcs[(i + 1) * cols + j] ?? 0) >= (lcs[i * cols + j + 1] ?? 0))
    ) {
      out.push({ kind: "removed", text: a[i] as string });
      i++;
    } else {
      out.push({ kind: "added", text: b[j] as string });
      j++;
    }
  }
  return out;
}

/**
 * The diff with runs of unchanged lines cut to `context` lines around each change (a run cut short
 * becomes one `skipped` line saying how many were left out).
 */
export function withContext(lines: DiffLine[], context = 3): DiffLine[] {
  const near = new Uint8Array(lines.length);
  lines.forEach((line, index) => {
    if (line.kind === "same") return;
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++)
      near[k] = 1;
  });
  const out: DiffLine[] = [];
  let skipped = 0;
  lines.forEach((line, index) => {
    if (line.kind !== "same" || near[index]) {
      if (skipped > 0) out.push({ kind: "skipped", text: `${skipped} unchanged lines` });
      skipped = 0;
      out.push(line);
    } else skipped++;
  });
  if (skipped > 0) out.push({ kind: "skipped", text: `${skipped} unchanged lines` });
  return out;
}

/** What a file-changing call would do: the file's text before and after. */
export interface FileChange {
  path: string;
  before: string;
  after: string;
  /** How `before` was known: the file as it is now, a new file, or only the call's own snippet. */
  basis?: "file" | "new file" | "snippet";
}

/** A change a call proposes, read from its arguments (before the file is looked at). */
export type ProposedChange =
  | { kind: "edit"; path: string; oldText: string; newText: string; replaceAll: boolean }
  | { kind: "write"; path: string; content: string };

const str = (value: unknown) => (typeof value === "string" ? value : undefined);

/**
 * The change a call proposes when its arguments look like an edit (`oldString`/`newString` of the
 * built-in Edit, `old_string`/`new_string`, `oldText`/`newText`, `old_str`/`new_str`) or a whole-file
 * write (`content` or `text`) of a file (`path`, `file_path`, `filePath` or `file`); else undefined.
 */
export function proposedChangeOf(input: unknown): ProposedChange | undefined {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined;
  const args = input as Record<string, unknown>;
  const path = str(args.path) ?? str(args.file_path) ?? str(args.filePath) ?? str(args.file);
  if (path === undefined || path === "") return undefined;
  const oldText = str(args.oldString) ?? str(args.old_string) ?? str(args.oldText) ?? str(args.old_str);
  const newText = str(args.newString) ?? str(args.new_string) ?? str(args.newText) ?? str(args.new_str);
  if (oldText !== undefined && newText !== undefined)
    return { kind: "edit", path, oldText, newText, replaceAll: args.replaceAll === true };
  const content = str(args.content) ?? str(args.text);
  if (content !== undefined) return { kind: "write", path, content };
  return undefined;
}

/**
 * The change against the file as it is now (`current`; undefined when it does not exist, null when
 * it could not be read): a write replaces it ("new file" when there is none); an edit is applied
 * to it. An edit whose text is not in the file, or a file not read, falls back to the call's snippet.
 */
export function changeAgainst(change: ProposedChange, current: string | null | undefined): FileChange {
  const { path } = change;
  if (change.kind === "write") {
    if (current === undefined) return { path, before: "", after: change.content, basis: "new file" };
    if (current === null) return { path, before: "", after: change.content, basis: "snippet" };
    return { path, before: current, after: change.content, basis: "file" };
  }
  if (typeof current === "string" && change.oldText !== "" && current.includes(change.oldText)) {
    const after = change.replaceAll
      ? current.split(change.oldText).join(change.newText)
      : current.replace(change.oldText, () => change.newText);
    return { path, before: current, after, basis: "file" };
  }
  return { path, before: change.oldText, after: change.newText, basis: "snippet" };
}

/**
 * The change a call proposes judged from its arguments alone: an edit's snippet, a write as a new
 * file. Kept for callers without access to the file (see `changeAgainst` for the file-aware one).
 */
export function fileChangeOf(input: unknown): FileChange | undefined {
  const change = proposedChangeOf(input);
  if (!change) return undefined;
  return change.kind === "edit"
    ? { path: change.path, before: change.oldText, after: change.newText }
    : { path: change.path, before: "", after: change.content };
}
