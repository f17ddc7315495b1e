import type { Checkpoint } from "./checkpoint.js";
import type { CheckpointStore } from "./checkpoint-store.js";
import { memoryFiles } from "./memory-snapshot.js";
import { contextHashes } from "./state-snapshot.js";
import { parseTree, type Tree } from "./workspace-tree.js";

/** How much history a session keeps. Oldest checkpoints go first; the newest is always kept. */
export interface CheckpointRetention {
  /** Checkpoints kept per session (default 200). */
  maxCheckpoints?: number;
  /** Checkpoints older than this are dropped (default 30 days). */
  maxAgeMs?: number;
  /**
   * Bytes of blobs a session keeps (default 1 GiB). Over it, the oldest checkpoints' workspace
   * snapshots are dropped (the checkpoint stays, marked `pruned`, and cannot be restored), until the
   * snapshots still kept fit.
   */
  maxBytes?: number;
}

export const DEFAULT_RETENTION: Required<CheckpointRetention> = {
  maxCheckpoints: 200,
  maxAgeMs: 30 * 24 * 60 * 60 * 1000,
  maxBytes: 1024 * 1024 * 1024,
};

/** Checks a retention policy given by a caller: each bound a positive number. */
export function resolveRetention(retention: CheckpointRetention = {}): Required<CheckpointRetention> {
  const resolved = { ...DEFAULT_RETENTION, ...retention };
  for (const [name, value] of Object.entries(resolved)) {
    if (typeof value !== "number" || !(value > 0) || Number.isNaN(value))
      throw new RangeError(`checkpoint retention: ${name} must be a positive number, got ${String(value)}`);
  }
  return resolved;
}

/** The blobs checkpoints name, read once per hash (trees and chains are immutable). */
export class Reachable {
  readonly #trees = new Map<string, Tree>();
  readonly #chains = new Map<string, string[]>();
  constructor(
    private readonly store: CheckpointStore,
    private readonly sessionId: string,
  ) {}

  /** The blobs of a checkpoint's state (always kept while the checkpoint is). */
  async ofState(checkpoint: Checkpoint): Promise<string[]> {
    let chain = this.#chains.get(checkpoint.contextBlob);
    if (!chain) {
      const { hashes, chunks } = await contextHashes(this.store, this.sessionId, checkpoint.contextBlob);
      chain = [...hashes, ...chunks];
      this.#chains.set(checkpoint.contextBlob, chain);
    }
    return [checkpoint.stateBlob, ...chain];
  }

  /** The blobs of a checkpoint's memory snapshot (its list and the files it names); none without one. */
  async ofMemory(checkpoint: Checkpoint): Promise<string[]> {
    const snapshot = checkpoint.memory?.snapshot;
    if (!snapshot) return [];
    const files = await memoryFiles(this.store, this.sessionId, snapshot).catch(() => ({}));
    return [snapshot, ...Object.values(files)];
  }

  /** The blobs of a workspace snapshot (its trees and files) that `known` does not hold yet. */
  async ofWorkspace(tree: string, known: ReadonlySet<string>): Promise<Set<string>> {
    const found = new Set<string>();
    const queue = [tree];
    while (queue.length > 0) {
      const hash = queue.pop()!;
      // a tree already known brings nothing new: its whole content is known with it
      if (known.has(hash) || found.has(hash)) continue;
      found.add(hash);
      let parsed = this.#trees.get(hash);
      if (!parsed) {
        const bytes = (await this.store.getBlobs(this.sessionId, [hash])).get(hash);
        if (!bytes) continue;
        parsed = parseTree(bytes, hash);
        this.#trees.set(hash, parsed);
      }
      for (const entry of parsed.entries) {
        if (entry.type === "dir") queue.push(entry.hash);
        else if (entry.type === "file" && !known.has(entry.hash)) found.add(entry.hash);
      }
    }
    return found;
  }
}

/** What a prune decided: checkpoints to drop, those whose snapshot to mark pruned, blobs to delete. */
export interface PrunePlan {
  drop: Checkpoint[];
  pruneSnapshots: Checkpoint[];
  deleteBlobs: string[];
  /** Bytes of the blobs kept. */
  keptBytes: number;
}

/**
 * Plans a prune of `checkpoints` (oldest first): count and age drop whole checkpoints, then bytes drop
 * the oldest snapshots, newest kept first, so the recent past stays restorable. Blobs no kept
 * checkpoint names are deleted (a blob written by a crashed record, too).
 */
export async function planPrune(
  checkpoints: Checkpoint[],
  sizes: Map<string, number>,
  reachable: Reachable,
  retention: Required<CheckpointRetention>,
  now: number,
): Promise<PrunePlan> {
  const newest = checkpoints.at(-1);
  const kept = checkpoints.filter(
    (checkpoint, i) =>
      checkpoint === newest ||
      (i >= checkpoints.length - retention.maxCheckpoints &&
        now - Date.parse(checkpoint.createdAt) <= retention.maxAgeMs),
  );
  const drop = checkpoints.filter((checkpoint) => !kept.includes(checkpoint));
  const keep = new Set<string>();
  let keptBytes = 0;
  const add = (hashes: Iterable<string>) => {
    for (const hash of hashes) {
      if (keep.has(hash)) continue;
      keep.add(hash);
      keptBytes += sizes.get(hash) ?? 0;
    }
  };
  for (const checkpoint of kept) {
    add(await reachable.ofState(checkpoint));
    add(await reachable.ofMemory(checkpoint));
  }
  const pruneSnapshots: Checkpoint[] = [];
  let over = false;
  for (const checkpoint of [...kept].reverse()) {
    if (checkpoint.workspace?.status !== "kept") continue;
    if (!over) {
      const more = await reachable.ofWorkspace(checkpoint.workspace.tree, keep);
      const moreBytes = [...more].reduce((sum, hash) => sum + (sizes.get(hash) ?? 0), 0);
      if (keptBytes + moreBytes <= retention.maxBytes || checkpoint === newest) {
        add(more);
        continue;
      }
      over = true;
    }
    pruneSnapshots.push(checkpoint);
  }
  const deleteBlobs = [...sizes.keys()].filter((hash) => !keep.has(hash));
  return { drop, pruneSnapshots, deleteBlobs, keptBytes };
}
