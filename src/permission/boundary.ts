import { isAbsolute, resolve } from "node:path";
import { pathsOfCall } from "./implied-paths.js";
import { baseDirectory, expandHome, isInside, realPath } from "./paths.js";
import type { PermissionContext, PermissionDecision, PermissionSubject } from "./types.js";

/**
 * The deny for a call that would leave the session's boundary (`PermissionContext.boundary`), or
 * undefined when every path it names stays inside (or there is no boundary). Judged on real paths,
 * in every mode; a tool whose paths cannot be read, or a boundary that is not absolute, is denied.
 * A tool that declares no `pathsOf` is judged on the places its arguments name (`impliedPaths`).
 */
export function boundaryDenial(
  subject: PermissionSubject,
  input: unknown,
  context: PermissionContext,
): PermissionDecision | undefined {
  const boundary = context.boundary;
  if (!boundary || boundary.sandboxedTools?.includes(subject.name)) return undefined;
  if (!isAbsolute(boundary.directory)) {
    return deny(`the session's boundary "${boundary.directory}" is not an absolute path`);
  }
  let paths: string[];
  try {
    paths = pathsOfCall(subject, input, context);
  } catch (error) {
    return deny(`the paths of this ${subject.name} call could not be read (${describe(error)})`);
  }
  if (paths.length === 0) return undefined;
  const root = realPath(boundary.directory);
  const base = baseDirectory(context);
  const outside = paths.find((path) => !isInside(realPath(resolve(base, expandHome(path))), root));
  if (outside === undefined) return undefined;
  const declared = subject.pathsOf
    ? ""
    : ` (${subject.name} declares no paths, so its arguments that name places on disk count as its paths)`;
  return deny(`${outside} is outside this session's workspace${declared}`);
}

function deny(reason: string): PermissionDecision {
  return { behavior: "deny", reason };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
