import { relative, sep } from "node:path";
import { type CredentialLists, credentialPathMatch } from "../permission/index.js";
import { HiddenPathScanner, type HiddenPaths } from "./hidden-path-scanner.js";

export type { HiddenPaths } from "./hidden-path-scanner.js";

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
 * What a sandbox over `root` covers now (one scan, nothing cached): the files that match an entry of
 * `filePatterns`, the directories that match one of `directoryNames` (entries as in
 * credential-paths.ts) and the git configs that hold credentials; see HiddenPathScanner. Fails past
 * `maxEntries` so a huge tree cannot make every command slow without anyone knowing.
 */
export function findHiddenPaths(
  root: string,
  filePatterns: readonly string[],
  directoryNames: readonly string[],
  maxEntries = 200_000,
): Promise<HiddenPaths> {
  const lists = { files: filePatterns, directories: directoryNames };
  return new HiddenPathScanner(root, lists, { limits: { maxEntries } }).scan();
}
