import { lstatSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { dangerousPathReason } from "./dangerous-paths.js";
import { baseDirectory, expandHome } from "./paths.js";
import type { PermissionContext, PermissionSubject } from "./types.js";

/** String values of an input looked at, at most, and how deep into its objects and arrays. */
const MAX_STRINGS = 256;
const MAX_DEPTH = 8;
const MAX_PATH_CHARS = 4096;

/**
 * The paths a call touches as the engine sees them: what the tool's `pathsOf` declares, or, for a
 * tool that declares none (a function or MCP tool), the paths its arguments name (`impliedPaths`).
 * The engine cannot see what such a tool does with `/etc/passwd`, so it fails closed and treats the
 * argument as a path; a tool whose strings are not paths declares `pathsOf: () => []`.
 */
export function pathsOfCall(
  subject: PermissionSubject,
  input: unknown,
  context: PermissionContext,
): string[] {
  return subject.pathsOf ? subject.pathsOf(input, context) : impliedPaths(input, context);
}

/**
 * Every string in `input` (its own, and those in its objects and arrays) that names a place on
 * disk: a path-like string (absolute, `~`, or with a `/` or `..`) that exists, or whose directory
 * does (other than `/`), resolved against the first working directory; and any string whose name is
 * a dangerous one (`.env`, `id_rsa`). Text that merely holds a slash (`and/or`, `/v1/items`) is not
 * one unless that place exists.
 */
export function impliedPaths(input: unknown, context: PermissionContext): string[] {
  const strings: string[] = [];
  collectStrings(input, 0, strings);
  if (strings.length === 0) return [];
  const base = baseDirectory(context);
  const paths: string[] = [];
  for (const text of strings) {
    // `file:///x` is the path `/x`.
    const path = text.startsWith("file://") ? decodeFileUrl(text) : text;
    if (path !== undefined && namesAPlace(path, base)) paths.push(path);
  }
  return paths;
}

function collectStrings(value: unknown, depth: number, out: string[]): void {
  if (out.length >= MAX_STRINGS) return;
  if (typeof value === "string") {
    if (value !== "" && value.length <= MAX_PATH_CHARS && !/[\n\0]/.test(value)) out.push(value);
    return;
  }
  if (typeof value !== "object" || value === null || depth >= MAX_DEPTH) return;
  for (const item of Array.isArray(value) ? value : Object.values(value))
    collectStrings(item, depth + 1, out);
}

function namesAPlace(path: string, base: string): boolean {
  const absolute = resolve(base, expandHome(path));
  if (dangerousPathReason(absolute) !== undefined) return true;
  const pathLike = isAbsolute(path) || path.startsWith("~") || path.includes("/") || path === "..";
  if (!pathLike) return false;
  const parent = dirname(absolute);
  return exists(absolute) || (parent !== dirname(parent) && exists(parent));
}

function decodeFileUrl(text: string): string | undefined {
  try {
    return decodeURIComponent(new URL(text).pathname);
  } catch {
    return undefined;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
