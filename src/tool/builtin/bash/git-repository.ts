import { existsSync, lstatSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";

/**
 * Read-only git still runs programs its repository's config names (`core.fsmonitor`, filters,
 * hooks such as `post-index-change`). That is safe only when the repository is a `.git` directory
 * the agent could not have written without a safety ask (every path inside `.git` is dangerous).
 * This says why not, when git run in `directory` would use anything else: a directory of ordinary
 * files that looks like a repository (a bare one), a `.git` file or symlink pointing elsewhere, or
 * a repository above the working directory `base`. Both paths are absolute.
 */
export function gitRepositoryConcern(directory: string, base: string): string | undefined {
  if (!isWithin(directory, base)) return `git would run in ${directory}, outside the working directory`;
  for (let level = directory; ; level = dirname(level)) {
    const dotGit = join(level, ".git");
    const found = lstatOrUndefined(dotGit);
    if (found?.isDirectory()) return undefined;
    if (found?.isFile()) return gitFileConcern(dotGit);
    if (found) return `${dotGit} is not a directory, so git may read a repository anywhere`;
    if (existsSync(join(level, "HEAD")))
      return `git may take ${level} itself for a repository (it holds a HEAD file) and run what its config names`;
    if (level === base || dirname(level) === level) break;
  }
  return `no .git directory in the working directory, so git would use a repository above it (${dirname(base)})`;
}

/** A `.git` file (`gitdir: ...`, a worktree or submodule) is fine when it points into a `.git` directory. */
function gitFileConcern(dotGit: string): string | undefined {
  let target: string | undefined;
  try {
    target = /^gitdir:\s*(.+?)\s*$/m.exec(readFileSync(dotGit, "utf8"))?.[1];
  } catch {
    target = undefined;
  }
  if (target === undefined) return `${dotGit} cannot be read as a gitdir file`;
  const absolute = resolve(dirname(dotGit), target);
  return absolute.split(/[/\\]/).includes(".git")
    ? undefined
    : `${dotGit} points git at ${absolute}, which is not inside a .git directory`;
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function isWithin(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
