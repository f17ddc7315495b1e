import { constants } from "node:fs";
import {
  chmod,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  symlink,
} from "node:fs/promises";
import { join } from "node:path";
import { CheckpointUnavailableError } from "./checkpoint-errors.js";
import { type CheckpointStore, getBlob } from "./checkpoint-store.js";
import { contentHash } from "./content-hash.js";
import type { SnapshotScope } from "./workspace-snapshot.js";
import { parseTree, type Tree } from "./workspace-tree.js";

/** Every tree of a snapshot, read and checked, with its files' hashes: a restore starts only when all are there. */
async function loadTrees(
  store: CheckpointStore,
  sessionId: string,
  root: string,
): Promise<Map<string, Tree>> {
  const trees = new Map<string, Tree>();
  const files = new Set<string>();
  const queue = [root];
  while (queue.length > 0) {
    const hash = queue.pop()!;
    if (trees.has(hash)) continue;
    const bytes = await getBlob(store, sessionId, hash);
    if (!bytes)
      throw new CheckpointUnavailableError(`its workspace tree ${hash.slice(0, 12)} is no longer stored`);
    const tree = parseTree(bytes, hash);
    trees.set(hash, tree);
    for (const entry of tree.entries) {
      if (entry.type === "dir") queue.push(entry.hash);
      else if (entry.type === "file") files.add(entry.hash);
    }
  }
  const missing = await store.missingBlobs(sessionId, [...files]);
  if (missing.length > 0)
    throw new CheckpointUnavailableError(`${missing.length} of its workspace files are no longer stored`);
  return trees;
}

/** What a restore changed. */
export interface RestoreSummary {
  written: number;
  removed: number;
}

/**
 * Makes the directory `root` hold exactly the snapshot `tree` (excluded paths aside, left as they
 * are): files whose content differs are rewritten, missing ones created, extra entries removed,
 * modes and symlinks put back. Nothing is changed unless every blob of the snapshot is stored
 * (`CheckpointUnavailableError` otherwise). No link is followed: a path whose parent is a symlink
 * in the directory now is replaced by a real directory before anything is written below it, and
 * files are opened with O_NOFOLLOW.
 */
export async function restoreWorkspace(
  store: CheckpointStore,
  sessionId: string,
  root: string,
  tree: string,
  options: SnapshotScope = {},
): Promise<RestoreSummary> {
  const trees = await loadTrees(store, sessionId, tree);
  await mkdir(root, { recursive: true });
  const top = await realpath(root);
  const summary: RestoreSummary = { written: 0, removed: 0 };
  await restoreDir(store, sessionId, top, "", tree, trees, options, summary);
  return summary;
}

async function restoreDir(
  store: CheckpointStore,
  sessionId: string,
  dir: string,
  relative: string,
  hash: string,
  trees: Map<string, Tree>,
  options: SnapshotScope,
  summary: RestoreSummary,
): Promise<void> {
  const tree = trees.get(hash)!;
  const wanted = new Map(tree.entries.map((entry) => [entry.name, entry]));
  const pathOf = (name: string) => (relative ? `${relative}/${name}` : name);
  for (const name of await readdir(dir)) {
    if (options.exclude?.(pathOf(name))) continue;
    const entry = wanted.get(name);
    const stats = await lstat(join(dir, name));
    const same =
      entry &&
      ((entry.type === "dir" && stats.isDirectory()) ||
        (entry.type === "file" && stats.isFile()) ||
        (entry.type === "symlink" && stats.isSymbolicLink()));
    if (!same) {
      await rm(join(dir, name), { recursive: true, force: true });
      summary.removed++;
    }
  }
  for (const entry of tree.entries) {
    if (options.exclude?.(pathOf(entry.name))) continue;
    const path = join(dir, entry.name);
    const stats = await lstat(path).catch(() => undefined);
    if (entry.type === "dir") {
      if (!stats) await mkdir(path, { mode: 0o700 });
      await restoreDir(store, sessionId, path, pathOf(entry.name), entry.hash, trees, options, summary);
      await chmod(path, entry.mode);
    } else if (entry.type === "symlink") {
      if (stats && (await readlink(path)) === entry.target) continue;
      if (stats) await rm(path, { force: true });
      await symlink(entry.target, path);
      summary.written++;
    } else {
      if (stats && Number(stats.size) === entry.size && contentHash(await readFile(path)) === entry.hash) {
        if ((stats.mode & 0o7777) !== entry.mode) await chmod(path, entry.mode);
        continue;
      }
      const bytes = await getBlob(store, sessionId, entry.hash);
      if (!bytes) throw new CheckpointUnavailableError(`its file ${pathOf(entry.name)} is no longer stored`);
      const file = await open(
        path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
        entry.mode,
      );
      try {
        await file.writeFile(bytes);
        await file.chmod(entry.mode);
      } finally {
        await file.close();
      }
      summary.written++;
    }
  }
}
