import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { dangerousPathReason } from "./dangerous-paths.js";
import type { PermissionContext, ToolPermissionResult } from "./types.js";

/** A path a call touches, resolved: `absolute` is lexical, `real` follows symlinks. */
export interface PathAssessment {
  path: string;
  absolute: string;
  real: string;
  /** Inside one of the working directories (judged on the real path). */
  inside: boolean;
  /** Why it is dangerous, if it is (judged on both the lexical and the real path). */
  danger?: string;
}

/** `~` and `~/x` become the home directory. */
export function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return path;
}

/** The real path, following symlinks; for a path that does not exist yet, its nearest existing parent's. */
export function realPath(absolute: string): string {
  try {
    return realpathSync.native(absolute);
  } catch {
    const parent = dirname(absolute);
    if (parent === absolute) return absolute;
    return join(realPath(parent), basename(absolute));
  }
}

/** The working directories as real paths (symlinks followed); the process cwd when none is set. */
export function realWorkingDirectories(context: PermissionContext): string[] {
  const dirs = context.workingDirectories.length > 0 ? context.workingDirectories : [process.cwd()];
  return dirs.map((dir) => realPath(resolve(expandHome(dir))));
}

/** The directory relative paths resolve against: the first working directory, else the process cwd. */
export function baseDirectory(context: PermissionContext): string {
  return realWorkingDirectories(context)[0]!;
}

/** Absolute, `~`-expanded path for a path as a tool received it. */
export function absolutePath(path: string, context: PermissionContext): string {
  return resolve(baseDirectory(context), expandHome(path));
}

/** Whether `path` is `dir` or lies below it (both absolute, normalised). */
export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

export function assessPath(path: string, context: PermissionContext): PathAssessment {
  const absolute = absolutePath(path, context);
  const real = realPath(absolute);
  const inside = realWorkingDirectories(context).some((dir) => isInside(real, dir));
  const danger = dangerousPathReason(absolute) ?? dangerousPathReason(real);
  return danger === undefined ? { path, absolute, real, inside } : { path, absolute, real, inside, danger };
}

/**
 * The engine's verdict on the paths of one call: a safety ask for a dangerous path, an ask for a
 * path outside the working directories, an allow for edits inside them in accept_edits mode, else
 * passthrough.
 */
export function pathPermission(
  paths: readonly string[],
  context: PermissionContext,
  options: { editsFiles?: boolean } = {},
): ToolPermissionResult {
  const assessed = paths.map((path) => assessPath(path, context));
  const dangerous = assessed.find((entry) => entry.danger !== undefined);
  if (dangerous) {
    return {
      behavior: "ask",
      safety: true,
      reason: `${dangerous.path} is a sensitive path (${dangerous.danger}); a person must confirm`,
    };
  }
  const outside = assessed.find((entry) => !entry.inside);
  if (outside) {
    return {
      behavior: "ask",
      reason: `${outside.path} is outside the working directories (${realWorkingDirectories(context).join(", ")})`,
    };
  }
  if (options.editsFiles && context.mode === "accept_edits" && assessed.length > 0) {
    return {
      behavior: "allow",
      reason: "edits inside the working directories are allowed in accept_edits mode",
    };
  }
  return { behavior: "passthrough" };
}

/** Whether every path is inside the working directories and none is dangerous. */
export function pathsAreSafe(paths: readonly string[], context: PermissionContext): boolean {
  return paths.every((path) => {
    const entry = assessPath(path, context);
    return entry.inside && entry.danger === undefined;
  });
}
