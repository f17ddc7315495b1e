import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";

/** Secret-looking files and directories found under a workspace root, as absolute paths. */
export interface HiddenPaths {
  files: string[];
  directories: string[];
}

/** Directories not searched for secrets (large, and tools do not keep secrets there). */
const SKIPPED = new Set(["node_modules", ".git"]);

/** `*` matches any run of characters; everything else is literal. */
export function namePattern(glob: string): RegExp {
  const escaped = glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`);
}

/**
 * Walks `root` (not following symlinks, skipping node_modules and .git) and returns the files whose
 * base name matches one of `filePatterns` and the directories named in `directoryNames`. Stops with
 * an error past `maxEntries` so a huge tree cannot make every command slow without anyone knowing.
 */
export async function findHiddenPaths(
  root: string,
  filePatterns: readonly string[],
  directoryNames: readonly string[],
  maxEntries = 100_000,
): Promise<HiddenPaths> {
  const found: HiddenPaths = { files: [], directories: [] };
  if (filePatterns.length === 0 && directoryNames.length === 0) return found;
  const patterns = filePatterns.map(namePattern);
  const hiddenDirs = new Set(directoryNames);
  let seen = 0;
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    seen += entries.length;
    if (seen > maxEntries)
      throw new Error(
        `the workspace ${root} has over ${maxEntries} entries to scan for secret files; ` +
          "set hiddenFiles: [] and hiddenDirectories: [] to skip the scan",
      );
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (hiddenDirs.has(entry.name)) found.directories.push(path);
        else if (!SKIPPED.has(entry.name)) pending.push(path);
      } else if (entry.isFile() && patterns.some((pattern) => pattern.test(entry.name))) {
        found.files.push(path);
      }
    }
  }
  return found;
}
