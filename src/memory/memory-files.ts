import { AgentScopeError, type ErrorType } from "../message/index.js";
/** The directory the model sees its notes under; tool paths start with it (or are relative to it). */
export const MEMORY_ROOT = "/memories";

/** One entry of a memory directory listing. */
export interface MemoryEntry {
  /** Path relative to the memory root, POSIX separators (`notes/prefs.md`). */
  path: string;
  kind: "file" | "directory";
  /** Bytes, for files. */
  size?: number;
}

/**
 * A memory directory: files of UTF-8 text under one root. Paths are relative to that root, already
 * normalised by `memoryPath` (no `..`, no leading `/`; `""` is the root itself). An implementation
 * must never read or write outside its root, whatever links or concurrent writers it meets; errors
 * are plain Errors whose message the model can read.
 * - `kind`: what is at `path`, or undefined.
 * - `list`: the entries below a directory, recursively, sorted by path.
 * - `read`: the file's text, or undefined when there is no such file.
 * - `write`: creates or replaces a file, creating its parent directories.
 * - `delete`: removes a file or a directory with all it holds; false when nothing was there.
 * - `rename`: moves a file or directory; the target must not exist.
 */
export interface MemoryFiles {
  kind(path: string): Promise<"file" | "directory" | undefined>;
  list(dir: string): Promise<MemoryEntry[]>;
  read(path: string): Promise<string | undefined>;
  write(path: string, content: string): Promise<void>;
  delete(path: string): Promise<boolean>;
  rename(from: string, to: string): Promise<void>;
}

/** Thrown for a path that would leave the memory directory, or is not a usable memory path. */
export class MemoryPathError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_request";
  constructor(message: string) {
    super(message);
    this.name = "MemoryPathError";
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The root-relative path for a path the model gave: `/memories/a/b.md`, `/memories`, or `a/b.md`.
 * Rejects `..` and `.` segments, backslashes, control characters and absolute paths outside
 * `/memories`, naming the problem.
 */
export function memoryPath(path: string): string {
  if (typeof path !== "string") throw new MemoryPathError("path: expected a string");
  if (CONTROL.test(path))
    throw new MemoryPathError(`${JSON.stringify(path)}: control characters are not allowed`);
  if (path.includes("\\")) throw new MemoryPathError(`${path}: use "/" as the separator`);
  let rest = path.trim();
  if (rest === MEMORY_ROOT || rest === `${MEMORY_ROOT}/`) return "";
  if (rest.startsWith(`${MEMORY_ROOT}/`)) rest = rest.slice(MEMORY_ROOT.length + 1);
  else if (rest.startsWith("/")) {
    throw new MemoryPathError(`${path} is outside the memory directory; paths start with ${MEMORY_ROOT}/`);
  }
  const segments = rest.split("/").filter((segment) => segment !== "");
  for (const segment of segments) {
    if (segment === ".." || segment === ".") {
      throw new MemoryPathError(`${path}: "${segment}" segments are not allowed in memory paths`);
    }
  }
  return segments.join("/");
}

/** How a root-relative path is shown to the model. */
export function shownPath(relative: string): string {
  return relative === "" ? MEMORY_ROOT : `${MEMORY_ROOT}/${relative}`;
}
