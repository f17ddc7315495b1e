import { constants } from "node:fs";
import { lstat, mkdir, open } from "node:fs/promises";
import { dirname, isAbsolute, resolve } from "node:path";
import { glob } from "tinyglobby";
import {
  CREDENTIAL_DIRECTORIES,
  CREDENTIAL_FILES,
  DANGEROUS_DIRECTORIES,
  DANGEROUS_FILES,
  dangerousPathReason,
  expandHome,
} from "../../permission/index.js";
import type { ToolContext } from "../types.js";

/** A file's bytes and its modification time, read through one open handle. */
export interface FileRead {
  data: Buffer;
  mtimeMs: number;
}

export interface FileListOptions {
  /** Include names starting with `.` (default true). */
  dot?: boolean;
  /** Globs of paths not to walk into or list (node_modules and .git are always skipped). */
  ignore?: readonly string[];
}

/**
 * How Read, Write, Edit, Glob and Grep reach files. Without a workspace it is the host as this process
 * sees it (the permission engine is the wall); a workspace passes its own view, which keeps every
 * path inside the root (no symlink or hard-link escape) and hides the credential paths its sandbox
 * hides. Errors name the path and say why; a refused path is never read or written.
 */
export interface FileView {
  /** `host`, `workspace`, ... */
  readonly kind: string;
  /** The absolute path a tool input names (`path` as the model gave it, relative to `base`), checked. */
  resolve(path: string, base: string): Promise<string>;
  read(absolute: string): Promise<FileRead>;
  /** Replaces the file's content, creating missing directories; returns the new modification time. */
  write(absolute: string, data: string | Uint8Array): Promise<{ mtimeMs: number }>;
  /** Files under `dir` (absolute) matching `pattern`, relative to `dir`, sorted; never a hidden path. */
  list(dir: string, pattern: string, options?: FileListOptions): Promise<string[]>;
  /**
   * Whether a file a search came across may be read and shown; `named`: the call named this file
   * itself (the permission engine has judged that path, so the host view shows it).
   */
  shows(absolute: string, options?: { named?: boolean }): Promise<boolean>;
  /** Globs (ripgrep syntax, matched case-insensitively) a search must never enter or read. */
  readonly searchExclusions: readonly string[];
}

/** A view, or a function giving the view of a call (a service gives each session's workspace's). */
export type FileViewSource = FileView | ((ctx: Pick<ToolContext, "permission">) => FileView);

/** Folders no search or listing walks. */
export const IGNORED_DIRECTORIES = ["**/node_modules/**", "**/.git/**"];

/** The view a call goes through: the tool's source, or the host view. */
export function fileViewOf(
  source: FileViewSource | undefined,
  ctx: Pick<ToolContext, "permission">,
): FileView {
  if (source === undefined) return hostFileView;
  return typeof source === "function" ? source(ctx) : source;
}

/** Reads a whole regular file through `handle`, with its modification time. */
export async function readHandle(handle: Awaited<ReturnType<typeof open>>, path: string): Promise<FileRead> {
  const info = await handle.stat();
  if (info.isDirectory()) throw Object.assign(new Error(`${path} is a directory`), { code: "EISDIR" });
  if (!info.isFile()) throw new Error(`${path} is not a regular file; the file tools only read files`);
  return { data: await handle.readFile(), mtimeMs: info.mtimeMs };
}

/**
 * The host as this process sees it: today's behaviour. Paths resolve lexically against the working
 * directory; listings do not follow symlinks; searches skip the engine's dangerous paths and files
 * with other hard links.
 */
export const hostFileView: FileView = {
  kind: "host",
  async resolve(path, base) {
    if (path.includes("\0")) throw new Error("a path cannot contain a NUL byte");
    const expanded = expandHome(path);
    return isAbsolute(expanded) ? resolve(expanded) : resolve(base, expanded);
  },
  async read(absolute) {
    // O_NONBLOCK: opening a FIFO must not hang the tool (readHandle refuses it).
    const handle = await open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      return await readHandle(handle, absolute);
    } finally {
      await handle.close();
    }
  },
  async write(absolute, data) {
    await mkdir(dirname(absolute), { recursive: true });
    const handle = await open(absolute, "w");
    try {
      await handle.writeFile(data);
      return { mtimeMs: (await handle.stat()).mtimeMs };
    } finally {
      await handle.close();
    }
  },
  async list(dir, pattern, options = {}) {
    const found = await glob(pattern, {
      cwd: dir,
      ignore: [...IGNORED_DIRECTORIES, ...(options.ignore ?? [])],
      dot: options.dot ?? true,
      followSymbolicLinks: false,
    });
    return found.sort();
  },
  async shows(absolute, options = {}) {
    if (!options.named && dangerousPathReason(absolute) !== undefined) return false;
    const info = await lstat(absolute).catch(() => undefined);
    // A file with other hard links may be one outside under a name inside: a search skips it (a
    // named one has been judged by the engine, which asks about it).
    if (!options.named && info?.isFile() && info.nlink > 1) return false;
    return info !== undefined;
  },
  searchExclusions: [
    ...DANGEROUS_FILES,
    ...DANGEROUS_DIRECTORIES,
    ...[...CREDENTIAL_FILES, ...CREDENTIAL_DIRECTORIES].map((entry) =>
      entry.includes("/") ? `**/${entry}` : entry,
    ),
    "node_modules",
  ],
};
