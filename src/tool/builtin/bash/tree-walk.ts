import { type Dirent, existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { dangerousPathReason } from "../../../permission/index.js";
import { hasOtherLinks } from "../tool-paths.js";
import type { Traversal } from "./traversals.js";

/** Entries one decision walks at most; a bigger tree cannot be shown to be free of secrets. */
export const MAX_WALKED_ENTRIES = 5_000;
/** Ignore files ripgrep reads in every directory; a `!` line in one re-includes hidden names. */
const IGNORE_FILES = new Set([".gitignore", ".ignore", ".rgignore"]);

/** What walking a recursive reader's tree found. */
export type WalkResult =
  /** Paths the engine must check too: dangerous entries and the symlinks the reader follows. */
  | { paths: string[] }
  /**
   * The tree could not be shown to be confined: too big, unreadable, or whitelisting hidden names
   * (`paths`: the dangerous entries met before it stopped, checked all the same).
   */
  | { unverifiable: string; paths: string[] };

/**
 * Walks the trees a recursive reader reads (absolute roots), the way it reads them: hidden names
 * skipped when it skips them, symlinks followed (and their targets walked) when it follows them.
 * Every dangerous entry met is returned so the engine asks about it by name.
 */
export function walkTraversal(traversal: Traversal, roots: readonly string[], base: string): WalkResult {
  const ignores = traversal.skipsHidden ? new IgnoredNames(base) : undefined;
  const pending: { path: string; ignored: ReadonlySet<string> }[] = [];
  for (const root of roots) {
    let ignored: ReadonlySet<string> = new Set();
    if (ignores) {
      const ancestors = ancestorsBelow(root, base).reverse();
      for (const ancestor of ancestors) {
        const read = ignores.read(ancestor, ignored);
        if ("whitelist" in read)
          return { unverifiable: whitelistReason(read.whitelist, traversal), paths: [] };
        ignored = read.inherited;
      }
    }
    pending.push({ path: root, ignored });
  }
  const found: string[] = [];
  const visited = new Set<string>();
  // Only roots and followed symlinks are pending as links: both are read through.
  let walked = 0;
  while (pending.length > 0) {
    const { path: directory, ignored: inherited } = pending.pop()!;
    let real: string;
    try {
      real = realpathSync.native(directory);
      if (!lstatSync(real).isDirectory()) continue;
    } catch {
      // `git grep x HEAD~1` searches a tree from history, which no walk of the disk sees.
      if (traversal.skipsGitDirectory && roots.includes(directory))
        return {
          unverifiable: `git grep searches ${directory}, which is not on disk (a revision?)`,
          paths: found,
        };
      continue;
    }
    if (visited.has(real)) continue;
    visited.add(real);
    let entries: Dirent[];
    try {
      entries = readdirSync(real, { withFileTypes: true });
    } catch {
      return {
        unverifiable: `${traversal.program} would read ${directory}, which cannot be listed`,
        paths: found,
      };
    }
    let ignored = inherited;
    let here: ReadonlySet<string> = new Set();
    if (ignores) {
      const read = ignores.read(real, inherited, new Set(entries.map((entry) => entry.name)));
      if ("whitelist" in read)
        return { unverifiable: whitelistReason(read.whitelist, traversal), paths: found };
      ignored = read.inherited;
      here = read.here;
    }
    for (const entry of entries) {
      if (++walked > MAX_WALKED_ENTRIES) {
        return {
          unverifiable: `${traversal.program} reads every file under ${roots.join(", ")}: more than ${MAX_WALKED_ENTRIES} entries, too many to show none is a secret`,
          paths: found,
        };
      }
      const path = join(real, entry.name);
      if (traversal.skipsGitDirectory && entry.name === ".git") continue;
      if (traversal.skipsHidden && entry.name.startsWith(".")) continue;
      if (isDangerous(path)) {
        found.push(path);
        continue;
      }
      if (entry.isFile() && hasOtherLinks(path))
        return { unverifiable: `${path} has other hard links, which may be outside`, paths: found };
      if (entry.isSymbolicLink()) {
        if (!traversal.followsLinks) continue;
        found.push(path);
        pending.push({ path, ignored });
      } else if (entry.isDirectory()) {
        // A directory an ignore file names plainly (`node_modules`, `/dist`) is never entered.
        if (ignored.has(entry.name) || here.has(entry.name)) continue;
        pending.push({ path, ignored });
      }
    }
  }
  return { paths: found };
}

/**
 * The directory names ripgrep's ignore files exclude, as far as they are plain names: `name`,
 * `name/` (at any depth below) and `/name` (only in that directory). A `!` line anywhere is a
 * whitelist, which may re-include hidden names: the walk then cannot be shown to be confined.
 * `.gitignore` counts only inside a git repository, as ripgrep reads it.
 */
class IgnoredNames {
  private readonly files: string[];

  constructor(base: string) {
    this.files = insideRepository(base) ? [...IGNORE_FILES] : [".ignore", ".rgignore"];
  }

  /** `listed`: the directory's entries, when already read (saves a look-up per ignore file). */
  read(
    directory: string,
    inherited: ReadonlySet<string>,
    listed?: ReadonlySet<string>,
  ): { inherited: ReadonlySet<string>; here: ReadonlySet<string> } | { whitelist: string } {
    let below: Set<string> | undefined;
    const here = new Set<string>();
    for (const name of IGNORE_FILES) {
      const path = join(directory, name);
      if (listed ? !listed.has(name) : !existsSync(path)) continue;
      let text: string;
      try {
        text = readFileSync(path, "utf8");
      } catch {
        return { whitelist: path };
      }
      if (/^\s*!/m.test(text)) return { whitelist: path };
      if (!this.files.includes(name)) continue;
      for (const line of text.split(/\r?\n/)) {
        const plain = /^(\/)?([\w.-]+)\/?\s*$/.exec(line);
        if (!plain) continue;
        if (plain[1]) {
          here.add(plain[2]!);
          continue;
        }
        below ??= new Set(inherited);
        below.add(plain[2]!);
      }
    }
    return { inherited: below ?? inherited, here };
  }
}

function insideRepository(directory: string): boolean {
  for (let level = directory; ; level = dirname(level)) {
    if (existsSync(join(level, ".git"))) return true;
    if (dirname(level) === level) return false;
  }
}

/**
 * Whether an entry met in a walk is dangerous. Its ancestors were checked already (the roots as
 * paths, the directories as entries, none of them descended into when dangerous), so the last few
 * segments decide: no dangerous entry is a tail longer than three segments (`.config/git/hooks`).
 */
function isDangerous(path: string): boolean {
  const segments = path.split(sep);
  return dangerousPathReason(segments.length > 5 ? `/${segments.slice(-4).join(sep)}` : path) !== undefined;
}

function whitelistReason(path: string, traversal: Traversal): string {
  return `${path} re-includes names with "!", so ${traversal.program} may read hidden files`;
}

/** The directories from a root's parent up to `base` (both absolute), when the root is below it. */
function ancestorsBelow(root: string, base: string): string[] {
  const out: string[] = [];
  const within = relative(base, root);
  if (within === "" || within.startsWith("..") || isAbsolute(within)) return within === "" ? [base] : [];
  for (let directory = root; ; directory = dirname(directory)) {
    out.push(directory);
    if (directory === base || dirname(directory) === directory) break;
  }
  return out;
}
