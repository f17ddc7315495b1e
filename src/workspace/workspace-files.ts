import type { Dirent } from "node:fs";
import { mkdir, readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import { type CredentialLists, DEFAULT_CREDENTIAL_LISTS } from "../permission/index.js";
import { WorkspacePathError } from "./errors.js";
import { isHiddenPath } from "./hidden-paths.js";

/** One entry of a workspace listing. `path` is relative to the root, with `/` separators. */
export interface WorkspaceEntry {
  path: string;
  type: "file" | "directory" | "symlink" | "other";
  /** Bytes (files); 0 for the rest. */
  size: number;
  /** ISO 8601. */
  modifiedAt: string;
}

/**
 * The absolute path of `path` (relative to `root`, or absolute inside it). Throws WorkspacePathError
 * when it leaves the root, also through a symlink: the deepest existing ancestor is resolved with
 * realpath, so a link pointing outside is caught before anything is read or written.
 */
export async function resolveInRoot(root: string, path: string): Promise<string> {
  if (path.includes("\0")) throw new WorkspacePathError(path, "a workspace path cannot contain a NUL byte");
  const realRoot = await realpath(root);
  const absolute = resolve(realRoot, isAbsolute(path) ? relative(root, path) : path);
  const outside = (candidate: string) => {
    const rel = relative(realRoot, candidate);
    return rel.startsWith("..") || isAbsolute(rel);
  };
  if (outside(absolute)) throw new WorkspacePathError(path, `${path} is outside the workspace ${root}`);
  let existing = absolute;
  for (;;) {
    try {
      const real = await realpath(existing);
      if (outside(real))
        throw new WorkspacePathError(path, `${path} leads outside the workspace ${root} through a symlink`);
      return absolute;
    } catch (error) {
      if (WorkspacePathError.isInstance(error)) throw error;
      const parent = dirname(existing);
      if (parent === existing) return absolute;
      existing = parent;
    }
  }
}

/** The root-relative, `/`-separated form of an absolute path inside `root`. */
export function relativeToRoot(root: string, absolute: string): string {
  return relative(root, absolute).split(sep).join(posix.sep) || ".";
}

export async function readWorkspaceFile(root: string, path: string): Promise<Buffer> {
  return readFile(await resolveInRoot(root, path));
}

export async function writeWorkspaceFile(
  root: string,
  path: string,
  data: string | Uint8Array,
): Promise<string> {
  const absolute = await resolveInRoot(root, path);
  await mkdir(dirname(absolute), { recursive: true });
  await writeFile(absolute, data);
  return absolute;
}

export interface ListOptions {
  /** Also list the contents of subdirectories (default false). */
  recursive?: boolean;
  /** Stop after this many entries (default 10,000). */
  limit?: number;
  /** Paths not listed (default: the credential paths a sandbox hides, credential-paths.ts). */
  hidden?: CredentialLists;
}

/**
 * The entries of directory `dir` (default the root), sorted by path; symlinks are not followed and
 * hidden paths (`options.hidden`) are neither listed nor entered.
 */
export async function listWorkspaceFiles(
  root: string,
  dir = ".",
  options: ListOptions = {},
): Promise<WorkspaceEntry[]> {
  const realRoot = await realpath(root);
  const start = await resolveInRoot(root, dir);
  const limit = options.limit ?? 10_000;
  const hidden = options.hidden ?? DEFAULT_CREDENTIAL_LISTS;
  if (isHiddenPath(realRoot, start, hidden))
    throw new WorkspacePathError(dir, `${dir} is hidden in this workspace (it looks like a credential)`);
  const entries: WorkspaceEntry[] = [];
  const pending = [start];
  while (pending.length > 0 && entries.length < limit) {
    const current = pending.shift()!;
    let children: Dirent[];
    try {
      children = await readdir(current, { withFileTypes: true });
    } catch (error) {
      if (current === start) throw describeListError(dir, error as NodeJS.ErrnoException);
      continue;
    }
    for (const child of children) {
      if (entries.length >= limit) break;
      const absolute = join(current, child.name);
      if (isHiddenPath(realRoot, absolute, hidden)) continue;
      const info = await stat(absolute).catch(() => undefined);
      const type = child.isSymbolicLink()
        ? "symlink"
        : child.isDirectory()
          ? "directory"
          : child.isFile()
            ? "file"
            : "other";
      entries.push({
        path: relativeToRoot(realRoot, absolute),
        type,
        size: type === "file" ? (info?.size ?? 0) : 0,
        modifiedAt: (info?.mtime ?? new Date(0)).toISOString(),
      });
      if (options.recursive && type === "directory") pending.push(absolute);
    }
  }
  return entries.sort((a, b) => a.path.localeCompare(b.path));
}

function describeListError(dir: string, error: NodeJS.ErrnoException): Error {
  if (error.code === "ENOENT") return new WorkspacePathError(dir, `${dir} does not exist in the workspace`);
  if (error.code === "ENOTDIR") return new WorkspacePathError(dir, `${dir} is a file, not a directory`);
  return error;
}
