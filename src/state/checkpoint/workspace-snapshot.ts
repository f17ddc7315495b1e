import type { BigIntStats } from "node:fs";
import { lstat, mkdir, readdir, readFile, readlink, realpath } from "node:fs/promises";
import { join } from "node:path";
import type { CheckpointBlob, CheckpointStore } from "./checkpoint-store.js";
import { contentHash, jsonBlob } from "./content-hash.js";
import type { Tree, TreeEntry } from "./workspace-tree.js";

/** What a snapshot is of, and what it leaves out. */
export interface SnapshotScope {
  /** Relative POSIX paths (`a/b.txt`) to leave out of snapshots and untouched by restores. */
  exclude?: (path: string) => boolean;
}

/** A workspace as one checkpoint names it. */
export interface WorkspaceSnapshot {
  /** The hash of the root tree. */
  tree: string;
  files: number;
  /** The bytes of every file it holds (what a full copy would take). */
  bytes: number;
  /** Entries that are neither files, directories nor symlinks (sockets, FIFOs, devices): not kept. */
  skipped: number;
}

interface Known {
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
  ino: bigint;
  hash: string;
}

/**
 * Hashes of files as last seen, so a snapshot reads only files whose size, inode, mtime or ctime
 * changed (ctime moves on every write, whatever wrote it: a tool, the shell, a program the shell ran).
 */
export class FileHashCache {
  readonly #known = new Map<string, Known>();

  get(path: string, stats: BigIntStats): string | undefined {
    const known = this.#known.get(path);
    if (
      known &&
      known.size === stats.size &&
      known.mtimeNs === stats.mtimeNs &&
      known.ctimeNs === stats.ctimeNs &&
      known.ino === stats.ino
    )
      return known.hash;
    return undefined;
  }

  set(path: string, stats: BigIntStats, hash: string): void {
    this.#known.set(path, {
      size: stats.size,
      mtimeNs: stats.mtimeNs,
      ctimeNs: stats.ctimeNs,
      ino: stats.ino,
      hash,
    });
  }
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Snapshots the directory `root` into the session's blobs: every file by content (stored once per
 * session, whoever wrote it), every directory as a tree blob, symlinks as their target text (never
 * followed: a link that points out of the workspace is kept as a link and nothing outside is read).
 * Mode bits are kept. Files whose content is already held are not sent again.
 */
export async function snapshotWorkspace(
  store: CheckpointStore,
  sessionId: string,
  root: string,
  options: SnapshotScope & { cache?: FileHashCache } = {},
): Promise<{ snapshot: WorkspaceSnapshot; addedBytes: number }> {
  await mkdir(root, { recursive: true }); // a workspace not made yet is an empty one
  const top = await realpath(root);
  const stats = await lstat(top);
  if (!stats.isDirectory()) throw new TypeError(`workspace snapshot: ${root} is not a directory`);
  const summary = { files: 0, bytes: 0, skipped: 0, added: 0 };
  const tree = await snapshotDir(store, sessionId, top, "", options, summary);
  const { added, ...counts } = summary;
  return { snapshot: { tree, ...counts }, addedBytes: added };
}

async function snapshotDir(
  store: CheckpointStore,
  sessionId: string,
  dir: string,
  relative: string,
  options: SnapshotScope & { cache?: FileHashCache },
  summary: { files: number; bytes: number; skipped: number; added: number },
): Promise<string> {
  const entries: TreeEntry[] = [];
  const pending: Array<{ path: string; entry: Extract<TreeEntry, { type: "file" }> }> = [];
  for (const name of (await readdir(dir)).sort()) {
    const rel = relative ? `${relative}/${name}` : name;
    if (options.exclude?.(rel)) continue;
    const path = join(dir, name);
    const stats = await lstat(path, { bigint: true });
    const mode = Number(stats.mode & 0o7777n);
    if (stats.isSymbolicLink()) {
      entries.push({ name, type: "symlink", target: await readlink(path) });
    } else if (stats.isDirectory()) {
      entries.push({
        name,
        type: "dir",
        mode,
        hash: await snapshotDir(store, sessionId, path, rel, options, summary),
      });
    } else if (stats.isFile()) {
      let hash = options.cache?.get(path, stats);
      if (hash === undefined) {
        const bytes = await readFile(path);
        hash = contentHash(bytes);
        options.cache?.set(path, stats, hash);
      }
      const entry = { name, type: "file" as const, mode, size: Number(stats.size), hash };
      pending.push({ path, entry });
      entries.push(entry);
      summary.files++;
      summary.bytes += Number(stats.size);
    } else {
      summary.skipped++;
    }
  }
  const missing = new Set(
    await store.missingBlobs(
      sessionId,
      pending.map((file) => file.entry.hash),
    ),
  );
  const blobs: CheckpointBlob[] = [];
  for (const { path, entry } of pending) {
    if (!missing.delete(entry.hash)) continue;
    const bytes = await readFile(path);
    // changed since it was hashed: the tree names what is stored, under its own hash
    entry.hash = contentHash(bytes);
    summary.bytes += bytes.byteLength - entry.size;
    entry.size = bytes.byteLength;
    blobs.push({ hash: entry.hash, bytes });
  }
  const tree: Tree = { entries: entries.sort(byName) };
  const treeBlob = jsonBlob(tree);
  blobs.push(treeBlob);
  summary.added += await store.putBlobs(sessionId, blobs);
  return treeBlob.hash;
}
