import { statSync } from "node:fs";
import { posix, relative } from "node:path";
import {
  absolutePath,
  baseDirectory,
  isInside,
  matchPathRule,
  type PermissionContext,
  type PermissionSubject,
} from "../../permission/index.js";
import type { ToolContext } from "../types.js";
import type { FileView } from "./file-view.js";

/** The absolute path a tool works on: relative paths resolve against the first working directory. */
export function toolPath(path: string, ctx: Pick<ToolContext, "permission">): string {
  return absolutePath(path, ctx.permission);
}

/** The absolute path a tool works on, resolved and checked by the call's file view. */
export function viewPath(
  view: FileView,
  path: string,
  ctx: Pick<ToolContext, "permission">,
): Promise<string> {
  return view.resolve(path, toolCwd(ctx));
}

/** The directory a tool runs in: the first working directory (real path), else the process cwd. */
export function toolCwd(ctx: Pick<ToolContext, "permission">): string {
  return baseDirectory(ctx.permission);
}

/** A path shown to the model: relative to the first working directory when inside it. */
export function displayPath(absolute: string, context: PermissionContext): string {
  const base = baseDirectory(context);
  return isInside(absolute, base) ? relative(base, absolute) || "." : absolute;
}

/**
 * The permission members of a tool whose input names one path: the engine checks that path, rules
 * like `Read(src/**)` match it as a glob, and the suggested rule covers its directory.
 */
export function pathToolPermission(
  name: string,
  pathOf: (input: unknown) => string | undefined,
  options: { directory?: boolean } = {},
): Pick<PermissionSubject, "pathsOf" | "matchRule" | "suggestRules"> {
  return {
    pathsOf: (input, context) => withoutOtherLinks([pathOf(input) ?? "."], context),
    matchRule: (content, input, match) => matchPathRule(content, pathOf(input) ?? ".", match),
    suggestRules: (input) => [`${name}(${suggestedGlob(pathOf(input) ?? ".", options.directory === true)})`],
  };
}

/**
 * A file with other hard links may be a file outside the working directories under a name inside
 * them, which a check by path cannot see: at decision time such a path throws, so the call is not
 * read-only and asks (as Bash's readers do).
 */
export function withoutOtherLinks(paths: string[], context: PermissionContext | undefined): string[] {
  if (!context) return paths;
  const linked = paths.find((path) => hasOtherLinks(absolutePath(path, context)));
  if (linked !== undefined) throw new Error(`${linked} has other hard links, which may be outside`);
  return paths;
}

/** A regular file with more than one name (its other names may be anywhere on the file system). */
export function hasOtherLinks(path: string): boolean {
  try {
    const stats = statSync(path);
    return stats.isFile() && stats.nlink > 1;
  } catch {
    return false;
  }
}

/** `src/a.ts` → `src/**`, `/tmp/x/y` → `/tmp/x/**`, a directory → itself with `/**`. */
function suggestedGlob(path: string, isDirectory: boolean): string {
  const dir = posix.normalize(isDirectory ? path : posix.dirname(path)).replace(/\/+$/, "");
  return dir === "." || dir === "" ? "**" : `${dir}/**`;
}

/**
 * The directory a glob pattern can reach, joined to the directory it is applied in: `src/*.ts` under
 * `.` → `src`, `/etc/pass*` → `/etc`, `../x/*` → `../x`. A `..` after a wildcard can climb anywhere,
 * so such a pattern reaches `/`.
 */
export function globRoot(pattern: string, under = "."): string {
  const segments = pattern.split("/");
  const first = segments.findIndex((segment) => /(^|[^\\])[*?[{]/.test(segment));
  if (first !== -1 && segments.slice(first).includes("..")) return "/";
  const base = segments
    .slice(0, first === -1 ? segments.length : first)
    .join("/")
    .replace(/\\(.)/g, "$1");
  if (pattern.startsWith("/")) return base === "" ? "/" : base;
  return posix.join(under, base === "" ? "." : base);
}

/** Reads a string field of a tool input that may not have been validated yet. */
export function stringField(input: unknown, key: string): string | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const value = (input as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}
