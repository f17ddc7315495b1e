import type { CheckpointInfo, CheckpointList } from "../protocol/time-travel-types.js";

/** The versions of a user message: the lines that left the same conversation before it. */
export interface MessageBranches {
  /** 1-based: which version the session shows now. */
  current: number;
  /** The checkpoint to rewind to for each version (its line's newest), oldest version first. */
  tips: string[];
}

const BOUNDARIES = new Set(["reply_end", "pause", "fork"]);

/** Whether checkpoint `a` holds the same conversation prefix as the one named by `count` and `lastId`. */
const samePrefix = (checkpoint: CheckpointInfo, count: number, lastId: string | undefined) =>
  checkpoint.messages === count && (count === 0 || checkpoint.lastMessage?.id === lastId);

/**
 * The checkpoints of the tree (by `parent`), as the console reads them: children by parent id, and
 * the line from the session's head back to the first checkpoint.
 */
export class CheckpointTree {
  readonly byId = new Map<string, CheckpointInfo>();
  readonly #children = new Map<string, CheckpointInfo[]>();
  readonly onLine = new Set<string>();

  constructor(readonly list: CheckpointList) {
    for (const checkpoint of list.checkpoints) {
      this.byId.set(checkpoint.id, checkpoint);
      if (checkpoint.parent === undefined) continue;
      const siblings = this.#children.get(checkpoint.parent) ?? [];
      siblings.push(checkpoint);
      this.#children.set(checkpoint.parent, siblings);
    }
    for (let at = list.head.at; at !== undefined; at = this.byId.get(at)?.parent) {
      if (this.onLine.has(at)) break;
      this.onLine.add(at);
    }
  }

  /**
   * The checkpoint a rewind to "just after message `id`" goes to: the newest taken at a reply end,
   * pause or fork whose last message it is, else the newest of any kind (a rewind's).
   */
  after(id: string, count: number): CheckpointInfo | undefined {
    const matching = this.list.checkpoints.filter((checkpoint) => samePrefix(checkpoint, count, id));
    return matching.findLast((checkpoint) => BOUNDARIES.has(checkpoint.kind)) ?? matching.at(-1);
  }

  /** The newest checkpoint holding exactly the `count` messages ending with `lastId` (an edit goes there). */
  before(count: number, lastId: string | undefined): CheckpointInfo | undefined {
    return this.list.checkpoints.findLast((checkpoint) => samePrefix(checkpoint, count, lastId));
  }

  /**
   * The versions of the user message at `index` (after the message `previousId`): every line that
   * left a checkpoint of that same conversation prefix and went past it. Each version's tip is the
   * newest checkpoint of its line, so switching to it shows it as it was left. A session whose head
   * is at the prefix itself (a reply to an edit under way, not checkpointed yet) counts as a new last version.
   */
  branchesAt(index: number, previousId: string | undefined): MessageBranches | undefined {
    const prefix = this.list.checkpoints.filter((checkpoint) => samePrefix(checkpoint, index, previousId));
    const inPrefix = new Set(prefix.map((checkpoint) => checkpoint.id));
    const versions: Array<{ first: number; tip: CheckpointInfo; current: boolean }> = [];
    for (const point of prefix)
      for (const child of this.#children.get(point.id) ?? []) {
        if (inPrefix.has(child.id)) continue;
        const line = this.#subtree(child);
        if (!line.some((checkpoint) => checkpoint.messages > index)) continue;
        const tip = line.reduce((newest, checkpoint) => (checkpoint.seq > newest.seq ? checkpoint : newest));
        versions.push({ first: child.seq, tip, current: line.some((c) => c.id === this.list.head.at) });
      }
    versions.sort((a, b) => a.first - b.first);
    const at = versions.findIndex((version) => version.current);
    const tips = versions.map((version) => version.tip.id);
    if (at >= 0) return tips.length > 1 ? { current: at + 1, tips } : undefined;
    // the head is at the prefix: the message shown is a version not checkpointed yet
    if (tips.length === 0) return undefined;
    return { current: tips.length + 1, tips: [...tips, this.list.head.at ?? ""] };
  }

  /** The memory writes listed by the checkpoints of the session's line after `target`. */
  memoryWritesAfter(target: CheckpointInfo): CheckpointInfo["memoryWrites"] {
    return this.list.checkpoints
      .filter((checkpoint) => this.onLine.has(checkpoint.id) && checkpoint.seq > target.seq)
      .flatMap((checkpoint) => checkpoint.memoryWrites);
  }

  #subtree(root: CheckpointInfo): CheckpointInfo[] {
    const found: CheckpointInfo[] = [];
    const stack = [root];
    while (stack.length > 0) {
      const next = stack.pop()!;
      found.push(next);
      stack.push(...(this.#children.get(next.id) ?? []));
    }
    return found;
  }
}
