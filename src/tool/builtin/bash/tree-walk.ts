import { type Dirent, existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { dangerousPathReason } from "../../../permission/index.js";
import type { Traversal } from "./traversals.js";

/** Entries one decision walks at most; a bigger tree cannot be shown to be free of secrets. */
export const MAX_WALKED_ENTRIES = 5_000;
/** Ignore files ripgrep reads in every directory; a `!` line in one re-includes hidden names. */
const IGNORE_FILES = new Set([".gitignore", ".ignore", ".rgignore"]);

/** What walking a recursive reader's tree found. */
export type WalkResult =
  /** Paths the engine must check too: dangerous entries and the symlinks the reader follows. */
  | { paths: string[] }
  /** The tree could not be shown to be confined: too big, unreadable, or whitelisting hidden names. */
  | { unverifiable: string };

/**
 * Walks the trees a recursive reader reads (absolute roots), the way it reads them: hidden names
 * skipped when it skips them, symlinks followed (and their targets walked) when it follows them.
 * Every dangerous entry met is returned so the engine asks about it by name.
 */
export function walkTraversal(traversal: Traversal, roots: readonly string[], base: string): WalkResult {
  if (traversal.skipsHidden) {
    const whitelist = roots
      .flatMap((root) => ancestorsBelow(root, base))
      .map(hasWhitelist)
      .find((path) => path !== undefined);
    if (whitelist) return { unverifiable: whitelistReason(whitelist, traversal) };
  }
  const found: string[] = [];
  const visited = new Set<string>();
  // Only roots and followed symlinks are pending as links: both are read through.
  const pending = [...roots];
  let walked = 0;
  while (pending.length > 0) {
    const directory = pending.pop()!;
    let real: string;
    try {
      real = realpathSync.native(directory);
      if (!lstatSync(real).isDirectory()) continue;
    } catch {
      continue;
    }
    if (visited.has(real)) continue;
    visited.add(real);
    let entries: Dirent[];
    try {
      entries = readdirSync(real, { withFileTypes: true });
    } catch {
      return { unverifiable: `${traversal.program} would read ${directory}, which cannot be listed` };
    }
    for (const entry of entries) {
      if (++walked > MAX_WALKED_ENTRIES) {
        return {
          unverifiable: `${traversal.program} reads every file under ${roots.join(", ")}: more than ${MAX_WALKED_ENTRIES} entries, too many to show none is a secret`,
        };
      }
      const path = join(real, entry.name);
      if (traversal.skipsHidden && IGNORE_FILES.has(entry.name) && whitelists(path))
        return { unverifiable: whitelistReason(path, traversal) };
      if (traversal.skipsGitDirectory && entry.name === ".git") continue;
      if (traversal.skipsHidden && entry.name.startsWith(".")) continue;
      if (dangerousPathReason(path) !== undefined) {
        found.push(path);
        continue;
      }
      if (entry.isSymbolicLink()) {
        if (!traversal.followsLinks) continue;
        found.push(path);
        pending.push(path);
      } else if (entry.isDirectory()) {
        pending.push(path);
      }
    }
  }
  return { paths: found };
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

/** Whether a directory holds an ignore file with a whitelist. */
function hasWhitelist(directory: string): string | undefined {
  for (const name of IGNORE_FILES) {
    const path = join(directory, name);
    if (existsSync(path) && whitelists(path)) return path;
  }
  return undefined;
}

/** Whether an ignore file has a `!` line (a whitelist), or cannot be read. */
function whitelists(path: string): boolean {
  try {
    return /^\s*!/m.test(readFileSync(path, "utf8"));
  } catch {
    return true;
  }
}
