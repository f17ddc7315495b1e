import { isAbsolute, relative } from "node:path";
import picomatch from "picomatch";
import { assessPath, expandHome, isInside, realWorkingDirectories } from "./paths.js";
import type { PermissionContext, RuleMatchContext } from "./types.js";

const DEFAULT_CONTEXT: PermissionContext = { mode: "default", rules: [], workingDirectories: [] };
const matchers = new Map<string, (path: string) => boolean>();

function matcher(pattern: string): (path: string) => boolean {
  let match = matchers.get(pattern);
  if (!match) {
    match = picomatch(pattern, { dot: true });
    if (matchers.size > 500) matchers.clear();
    matchers.set(pattern, match);
  }
  return match;
}

/**
 * Whether a path rule's glob matches a path: `/tmp/**` and `~/notes/**` match absolute paths,
 * `src/**` matches paths relative to any working directory. Allow rules judge the real path (a
 * symlink does not smuggle a file in); deny and ask rules match the real or the lexical path, and
 * their relative patterns match anywhere too (a deny rule `*.env` also matches `/tmp/x/prod.env`),
 * so a deny rule cannot be stepped around by naming the file from outside the working directories.
 */
export function matchPathRule(pattern: string, path: string, match?: RuleMatchContext): boolean {
  const context = match?.context ?? DEFAULT_CONTEXT;
  const target = assessPath(path, context);
  const candidates = match?.behavior === "allow" ? [target.real] : [target.real, target.absolute];
  const glob = expandHome(pattern);
  const test = matcher(glob);
  if (isAbsolute(glob)) return candidates.some((candidate) => test(candidate));
  const dirs = realWorkingDirectories(context);
  const inWorkingDirectory = candidates.some((candidate) =>
    dirs.some((dir) => isInside(candidate, dir) && test(relative(dir, candidate) || ".")),
  );
  if (inWorkingDirectory || match?.behavior === "allow" || match === undefined) return inWorkingDirectory;
  const anywhere = matcher(glob.startsWith("**/") ? glob : `**/${glob}`);
  return candidates.some((candidate) => anywhere(candidate.replace(/^\/+/, "")));
}
