import { basename, dirname, join, resolve } from "node:path";
import { globSync } from "tinyglobby";
import {
  absolutePath,
  baseDirectory,
  type PermissionContext,
  type PermissionSubject,
  pathPermission,
  realPath,
  type ToolPermissionResult,
} from "../../../permission/index.js";
import { analyzeBash, type BashAnalysis } from "../bash-analysis.js";
import { hasOtherLinks, stringField } from "../tool-paths.js";
import { matchCommandRule, suggestCommandRules } from "./command-rule.js";
import { gitContentConcern } from "./git-content.js";
import { trackedDangerousPath } from "./git-index.js";
import { dotGitDirectory, gitRepositoryConcern } from "./git-repository.js";
import { walkTraversal } from "./tree-walk.js";

/** Matches of one glob checked at most; a glob matching more asks (it is not checked in part). */
export const MAX_GLOB_MATCHES = 1_000;

/** Every path a call touches, as far as the file system shows at decision time. */
interface DecisionPaths {
  paths: string[];
  /** Something the check cannot show to be safe: the call asks (a safety ask when `safety`). */
  unverifiable?: { reason: string; safety: boolean };
}

/**
 * The permission members of the Bash tool: read-only commands (allow-listed programs and options)
 * pass the fast path; control flow, hidden commands and dangerous patterns are safety asks; every
 * path the command names, globs expanded against the working directory, is checked by the engine.
 * At decision time it also walks the trees recursive readers read (their dangerous entries and
 * followed symlinks are checked as paths) and checks that git finds a `.git` repository. What it
 * cannot show to be safe (a glob or tree too big, a repository elsewhere) makes `pathsOf` throw, so
 * the call is not read-only, and `checkPermissions` ask with the reason.
 */
export function bashPermission(): Pick<
  PermissionSubject,
  "isReadOnly" | "pathsOf" | "checkPermissions" | "matchRule" | "suggestRules"
> {
  return {
    isReadOnly: (value) => analysisOf(value)?.readOnly ?? false,
    pathsOf: (value, context) => {
      const analysis = analysisOf(value);
      if (!analysis) return [];
      if (!context) return analysis.paths;
      const found = decisionPaths(analysis, context);
      if (found.unverifiable) throw new Error(found.unverifiable.reason);
      return found.paths;
    },
    checkPermissions: (value, context): ToolPermissionResult => {
      const analysis = analysisOf(value);
      if (!analysis) return { behavior: "passthrough" };
      if (analysis.safety.length > 0) {
        return {
          behavior: "ask",
          safety: true,
          reason: `a person must confirm: ${analysis.safety.join("; ")}`,
        };
      }
      const found = decisionPaths(analysis, context);
      if (found.unverifiable) {
        // The engine cannot check the paths itself (pathsOf threw): check the known ones here.
        const known = pathPermission(found.paths, context);
        if (known.behavior === "ask" && known.safety) return known;
        const { reason, safety } = found.unverifiable;
        return safety
          ? { behavior: "ask", safety: true, reason: `a person must confirm: ${reason}` }
          : { behavior: "ask", reason };
      }
      if (context.mode === "accept_edits" && analysis.fileEditsOnly) {
        return pathPermission(found.paths, context, { editsFiles: true });
      }
      return { behavior: "passthrough" };
    },
    matchRule: (content, value, match) => {
      try {
        const analysis = analysisOf(value);
        return analysis ? matchCommandRule(content, analysis, match) : false;
      } catch {
        // A failure never fails open: a deny or ask rule counts it as a match, an allow rule does not.
        return match !== undefined && match.behavior !== "allow";
      }
    },
    suggestRules: (value) => {
      const analysis = analysisOf(value);
      return analysis ? suggestCommandRules(analysis) : [];
    },
  };
}

function analysisOf(value: unknown): BashAnalysis | undefined {
  const command = stringField(value, "command");
  return command === undefined ? undefined : analyzeBash(command);
}

function decisionPaths(analysis: BashAnalysis, context: PermissionContext): DecisionPaths {
  const paths = [...analysis.paths, ...analysis.paths.flatMap((path) => physicalPath(path, context))];
  const globs = expandGlobs(analysis.globs, context);
  if ("unverifiable" in globs) return { paths, unverifiable: { reason: globs.unverifiable, safety: false } };
  paths.push(...globs.paths);
  const linked = paths.find((path) => hasOtherLinks(absolutePath(path, context)));
  if (linked !== undefined)
    return {
      paths,
      unverifiable: { reason: `${linked} has other hard links, which may be outside`, safety: false },
    };
  if (analysis.traversals.length === 0 && analysis.gitDirectories.length === 0) return { paths };
  const base = baseDirectory(context);
  for (const traversal of analysis.traversals) {
    const walked = walkTraversal(
      traversal,
      traversal.roots.map((root) => absolutePath(root, context)),
      base,
    );
    paths.push(...walked.paths);
    if ("unverifiable" in walked)
      return { paths, unverifiable: { reason: walked.unverifiable, safety: false } };
  }
  // What git prints from history it cannot show to be safe asks, after the index is checked (a
  // repository that tracks a secret is a safety ask either way).
  const trackedIn = new Set(analysis.gitContentDirectories);
  let history: string | undefined;
  for (const read of analysis.gitContentReads) {
    const concern = gitContentConcern(read, resolve(base, read.directory));
    if ("reason" in concern) history ??= concern.reason;
    if ("reason" in concern || concern.tracked) trackedIn.add(read.directory);
  }
  for (const directory of trackedIn) {
    const dotGit = dotGitDirectory(resolve(base, directory), base);
    const tracked = dotGit === undefined ? undefined : trackedDangerousPath(dotGit);
    if (tracked && "reason" in tracked)
      return { paths, unverifiable: { reason: tracked.reason, safety: false } };
    if (tracked && dotGit) paths.push(join(dirname(dotGit), tracked.path));
  }
  for (const directory of new Set(analysis.gitDirectories)) {
    const concern = gitRepositoryConcern(resolve(base, directory), base);
    // Programs a repository's own files name are safety asks; a repository elsewhere is a plain ask.
    if (concern)
      return {
        paths,
        unverifiable: { reason: concern, safety: !/^(no \.git|git would run in)/.test(concern) },
      };
  }
  if (history !== undefined) return { paths, unverifiable: { reason: history, safety: false } };
  return { paths };
}

/**
 * `link/../secret` is resolved by the kernel through the link (to the directory above the link's
 * target), not by dropping `link/..` as a lexical normalisation would: such a path is also checked
 * as the kernel reads it. Empty when the path has no `..` after another segment.
 */
function physicalPath(path: string, context: PermissionContext): string[] {
  const segments = path.split("/");
  const climbs = segments.findIndex(
    (segment, index) => segment === ".." && index > 0 && segments[index - 1] !== "..",
  );
  if (climbs === -1) return [];
  let current = absolutePath(segments.slice(0, climbs).join("/") || ".", context);
  for (const segment of segments.slice(climbs)) {
    if (segment === "" || segment === ".") continue;
    current = segment === ".." ? dirname(realPath(current)) : join(current, segment);
  }
  return [current];
}

/**
 * The files the shell's globs match now (as bash does: `*` skips dot files, no `**` recursion), so a
 * symlink or an unexpected name is checked like a path written out. More matches than can be
 * checked is unverifiable, never a partial check.
 */
function expandGlobs(
  globs: readonly string[],
  context: PermissionContext,
): { paths: string[] } | { unverifiable: string } {
  const out: string[] = [];
  for (const glob of globs) {
    const absolute = absolutePath(glob, context);
    const pattern = absolute.replace(/\*\*+/g, "*");
    let matches: string[];
    try {
      matches = globSync(pattern, { absolute: true, dot: false, onlyFiles: false, expandDirectories: false });
    } catch (error) {
      return { unverifiable: `the glob ${glob} could not be expanded (${describe(error)})` };
    }
    const option = matches.find((match) => basename(match).startsWith("-"));
    if (option !== undefined)
      return {
        unverifiable: `the glob ${glob} matches ${basename(option)}, which the program would take for an option`,
      };
    if (matches.length > MAX_GLOB_MATCHES)
      return {
        unverifiable: `the glob ${glob} matches ${matches.length} files, more than the ${MAX_GLOB_MATCHES} that are checked`,
      };
    out.push(...matches);
  }
  return { paths: out };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
