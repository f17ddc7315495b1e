import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { embeddedRepositories } from "./git-index.js";

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
    if (found?.isDirectory()) return repositoryConfigConcern(dotGit) ?? embeddedConcern(dotGit);
    if (found?.isFile()) return gitFileConcern(dotGit);
    if (found) return `${dotGit} is not a directory, so git may read a repository anywhere`;
    if (existsSync(join(level, "HEAD")))
      return `git may take ${level} itself for a repository (it holds a HEAD file) and run what its config names`;
    if (level === base || dirname(level) === level) break;
  }
  return `no .git directory in the working directory, so git would use a repository above it (${dirname(base)})`;
}

/**
 * Config keys that name a program git runs (or load more config, or move the work tree): read-only
 * commands run them (`status` runs `core.fsmonitor` and the `post-index-change` hook, `diff` runs
 * filters, textconv and `diff.external`, `log` runs `gpg.program`). Section and key, lower-cased;
 * `*` stands for a subsection (`pager.*`: any key of the section). `alias.x = !cmd` counts too.
 */
const PROGRAM_KEYS = new Set([
  "core.fsmonitor",
  "core.pager",
  "core.editor",
  "core.sshcommand",
  "core.askpass",
  "core.gitproxy",
  "core.hookspath",
  "core.worktree",
  "core.alternaterefscommand",
  "diff.external",
  "diff.*.textconv",
  "diff.*.command",
  "filter.*.clean",
  "filter.*.smudge",
  "filter.*.process",
  "gpg.program",
  "gpg.*.program",
  "gpg.ssh.defaultkeycommand",
  "log.showsignature",
  "credential.helper",
  "credential.*.helper",
  "include.path",
  "includeif.*.path",
  "uploadpack.packobjectshook",
  "sequence.editor",
  "interactive.difffilter",
  "pager.*",
]);

/**
 * Why the repository's own config or hooks would make a read-only command run a program, or
 * undefined. `core.fsmonitor = true` or `false` is git's own daemon or none, not a program.
 */
function repositoryConfigConcern(dotGit: string, depth = 0): string | undefined {
  // `commondir` moves the config (and hooks) to another directory: it too must be a `.git` one.
  const common = commonDirectory(dotGit);
  if (common !== undefined) {
    if (!isInsideDotGit(common) || depth > 2)
      return `${join(dotGit, "commondir")} points git at ${common}, which is not inside a .git directory`;
    const concern = repositoryConfigConcern(common, depth + 1);
    if (concern) return concern;
  }
  for (const name of ["config", "config.worktree"]) {
    let text: string;
    try {
      text = readFileSync(join(dotGit, name), "utf8");
    } catch {
      continue;
    }
    const key = programKey(text);
    if (key)
      return `${join(dotGit, name)} sets ${key}, which makes read-only git commands run a program or print other repositories' files`;
  }
  let hooks: string[];
  try {
    hooks = readdirSync(join(dotGit, "hooks"));
  } catch {
    hooks = [];
  }
  const hook = hooks.find((file) => !file.endsWith(".sample"));
  return hook === undefined ? undefined : `${join(dotGit, "hooks", hook)} is a hook git may run`;
}

/** The first program-naming key a git config file sets, as `section.key`. */
function programKey(text: string): string | undefined {
  let section = "";
  let subsection = false;
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)\s*("(?:[^"\\]|\\.)*")?\s*\]/.exec(line);
    if (header) {
      // `[diff "x"]` and the old `[diff.x]` both name a subsection.
      [section = ""] = header[1]!.toLowerCase().split(".");
      subsection = header[2] !== undefined || header[1]!.includes(".");
      line = line.slice(header[0].length).trim();
    } else if (line.startsWith("[")) {
      return `an unreadable section header ${line}`;
    }
    if (line === "" || /^[#;]/.test(line)) continue;
    const found = programSetting(section, subsection, line);
    if (found) return found;
  }
  return undefined;
}

function programSetting(section: string, subsection: boolean, line: string): string | undefined {
  const match = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
  if (!match) return undefined;
  const name = match[1]!.toLowerCase();
  const value = (match[2] ?? "").trim().replace(/^"|"$/g, "").toLowerCase();
  const key = subsection ? `${section}.*.${name}` : `${section}.${name}`;
  if (key === "core.fsmonitor" && /^(true|false|yes|no|on|off|0|1|)$/.test(value)) return undefined;
  if (section === "alias") return value.startsWith("!") ? `alias.${name}` : undefined;
  // `diff.submodule = diff` makes a plain `git diff` print the files of embedded repositories.
  if (key === "diff.submodule") return value === "short" ? undefined : key;
  if (PROGRAM_KEYS.has(key) || (!subsection && PROGRAM_KEYS.has(`${section}.*`))) return key;
  return undefined;
}

/** Where `.git/commondir` sends git for the shared config, refs and hooks, or undefined. */
function commonDirectory(dotGit: string): string | undefined {
  try {
    return resolve(dotGit, readFileSync(join(dotGit, "commondir"), "utf8").trim());
  } catch {
    return undefined;
  }
}

/** Embedded repositories checked at most; a repository embedding more asks. */
const MAX_EMBEDDED = 64;

/**
 * `git status` and `git diff` recurse into the repositories this one embeds (submodules, nested
 * repositories added whole), each under its own config and hooks: those are checked too.
 */
function embeddedConcern(dotGit: string): string | undefined {
  const embedded = embeddedRepositories(dotGit);
  if ("reason" in embedded) return embedded.reason;
  if (embedded.length > MAX_EMBEDDED)
    return `${dotGit} embeds ${embedded.length} repositories, more than the ${MAX_EMBEDDED} that are checked`;
  const top = dirname(dotGit);
  for (const path of embedded) {
    const inner = join(top, path, ".git");
    const found = lstatOrUndefined(inner);
    if (found?.isDirectory()) {
      const concern = repositoryConfigConcern(inner);
      if (concern) return `the embedded repository ${path}: ${concern}`;
    } else if (found?.isFile()) {
      const concern = gitFileConcern(inner);
      if (concern) return `the embedded repository ${path}: ${concern}`;
    } else if (found) return `${inner} is not a directory, so git may read a repository anywhere`;
  }
  return undefined;
}

function isInsideDotGit(path: string): boolean {
  return path.split(/[/\\]/).includes(".git");
}

/** The `.git` directory git run in `directory` uses, when it is one inside `base`. */
export function dotGitDirectory(directory: string, base: string): string | undefined {
  if (!isWithin(directory, base)) return undefined;
  for (let level = directory; ; level = dirname(level)) {
    const dotGit = join(level, ".git");
    if (lstatOrUndefined(dotGit)?.isDirectory()) return dotGit;
    if (level === base || dirname(level) === level) return undefined;
  }
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
  // A worktree's or submodule's git directory has a config (and a commondir) of its own.
  return isInsideDotGit(absolute)
    ? repositoryConfigConcern(absolute)
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
