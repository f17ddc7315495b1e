import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { type CredentialLists, credentialPathMatch, matchingCredentialEntry } from "../permission/index.js";

/** Secret-looking files and directories found under a workspace root, as absolute paths. */
export interface HiddenPaths {
  files: string[];
  directories: string[];
}

/** Directories not searched for secrets (large, and tools do not keep secrets there). */
const SKIPPED = new Set(["node_modules", ".git"]);

/**
 * Whether a path inside `root` is hidden by `lists` (the sandbox policy's `hiddenFiles` and
 * `hiddenDirectories`): it matches a file entry, or it is or lies inside a matching directory.
 * `absolute` must be inside `root`; both are real paths.
 */
export function isHiddenPath(root: string, absolute: string, lists: CredentialLists): boolean {
  const rel = relative(root, absolute);
  if (rel === "") return false;
  return credentialPathMatch(rel.split(sep), lists) !== undefined;
}

/**
 * Walks `root` (not following symlinks, skipping node_modules and .git) and returns the files that
 * match an entry of `filePatterns` and the directories that match one of `directoryNames` (entries
 * as in credential-paths.ts: a base name with `*`, or a path tail like `.config/gcloud`). Stops with
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
  let seen = 0;
  const pending: { dir: string; segments: string[] }[] = [{ dir: root, segments: [] }];
  while (pending.length > 0) {
    const { dir, segments } = pending.pop()!;
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
      const entrySegments = [...segments, entry.name];
      if (entry.isDirectory()) {
        // Ancestors were matched on the way down (a hidden directory is not entered): the tail is enough.
        if (matchingCredentialEntry(entrySegments, directoryNames)) found.directories.push(path);
        else if (!SKIPPED.has(entry.name)) pending.push({ dir: path, segments: entrySegments });
      } else if (entry.isFile() && matchingCredentialEntry(entrySegments, filePatterns)) {
        found.files.push(path);
      }
    }
  }
  return found;
}
