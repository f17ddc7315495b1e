/** One line of a diff: kept, removed or added. */
export interface DiffLine {
  kind: "same" | "removed" | "added";
  text: string;
}

/** A line diff (longest common subsequence; inputs are a tool call's few hundred lines at most). */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  const rows = a.length + 1;
  const cols = b.length + 1;
  const lcs = new Uint32Array(rows * cols);
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

/** What a file-changing call would do, read from its arguments (Write/Edit-style tools). */
export interface FileChange {
  path: string;
  before: string;
  after: string;
}

const str = (value: unknown) => (typeof value === "string" ? value : undefined);

/**
 * The change a call proposes, when its arguments look like a write (`content`) or an edit
 * (`old_string`/`new_string`, or `oldText`/`newText`) of a file; undefined otherwise.
 */
export function fileChangeOf(input: unknown): FileChange | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const args = input as Record<string, unknown>;
  const path = str(args.file_path) ?? str(args.path) ?? str(args.filePath) ?? str(args.file);
  if (path === undefined) return undefined;
  const before = str(args.old_string) ?? str(args.oldText) ?? str(args.old_str);
  const after = str(args.new_string) ?? str(args.newText) ?? str(args.new_str);
  if (before !== undefined && after !== undefined) return { path, before, after };
  const content = str(args.content) ?? str(args.text);
  if (content !== undefined) return { path, before: "", after: content };
  return undefined;
}
