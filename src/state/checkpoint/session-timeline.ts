import { newId, textOf } from "../../message/index.js";
import type { AgentState } from "../agent-state.js";
import {
  type Checkpoint,
  type CheckpointKind,
  checkpointId,
  checkpointKey,
  HEAD_KEY,
  type MemoryWrite,
  parseCheckpoint,
  parseTimelineHead,
  seqOfCheckpointId,
  type TimelineHead,
} from "./checkpoint.js";
import { CheckpointUnavailableError } from "./checkpoint-errors.js";
import type { CheckpointStore } from "./checkpoint-store.js";
import { type CheckpointMemory, revertMemoryWrites, snapshotMemory } from "./memory-snapshot.js";
import { type CheckpointRetention, planPrune, Reachable, resolveRetention } from "./retention.js";
import { loadCheckpointState, type StoredContext, stateBlobs } from "./state-snapshot.js";
import { type RestoreSummary, restoreWorkspace } from "./workspace-restore.js";
import { FileHashCache, type SnapshotScope, snapshotWorkspace } from "./workspace-snapshot.js";

export interface SessionTimelineOptions extends SnapshotScope {
  store: CheckpointStore;
  sessionId: string;
  /** The session's workspace directory; without one, checkpoints hold the state only. */
  workspace?: string;
  retention?: CheckpointRetention;
  /** The memory tool's name, whose writes each checkpoint lists (default `Memory`). */
  memoryTool?: string;
  /**
   * The memory directory that tool writes: snapshotted at each checkpoint, so a rewind can revert the
   * writes made after it (`rewindTo(..., { memory: "revert" })`). Without it the writes are only listed.
   */
  memory?: CheckpointMemory;
  /** The clock, for retention by age (default `Date.now`). */
  now?: () => number;
}

/** What `record` is told about the state besides the state itself. */
export interface RecordOptions {
  kind: CheckpointKind;
  stateVersion: number;
  logSeq?: number;
}

const WRITES = new Set(["create", "str_replace", "insert", "delete", "rename"]);
const FIRST_BRANCH = "main";

/**
 * One session's checkpoints: taking them (the state split into shared blobs, the workspace
 * snapshotted), reading them back, the branches, and retention. The caller serialises its calls
 * (it holds the session's run lock, or is the only process on it).
 */
export class SessionTimeline {
  readonly store: CheckpointStore;
  readonly sessionId: string;
  readonly workspace: string | undefined;
  readonly #options: SessionTimelineOptions;
  readonly #retention: Required<CheckpointRetention>;
  readonly #cache = new FileHashCache();
  readonly #reachable: Reachable;
  #lastContext: StoredContext | undefined;

  constructor(options: SessionTimelineOptions) {
    this.store = options.store;
    this.sessionId = options.sessionId;
    this.workspace = options.workspace;
    this.#options = options;
    this.#retention = resolveRetention(options.retention);
    this.#reachable = new Reachable(options.store, options.sessionId);
  }

  /** Where the session is on its timeline (a session with no checkpoint yet: the first branch). */
  async head(): Promise<TimelineHead> {
    return (await this.#read()).head;
  }

  /** The head and every checkpoint, in one read. */
  async #read(): Promise<{ head: TimelineHead; checkpoints: Checkpoint[] }> {
    const records = await this.store.records(this.sessionId);
    const checkpoints = records
      .filter((record) => record.key !== HEAD_KEY)
      .map((record) => parseCheckpoint(record.json, record.key));
    const head = records.find((record) => record.key === HEAD_KEY);
    const parsed = head
      ? parseTimelineHead(head.json, this.sessionId)
      : {
          branch: FIRST_BRANCH,
          nextSeq: 1,
          branches: { [FIRST_BRANCH]: { createdAt: new Date(0).toISOString() } },
        };
    // a record written just before a crash, whose head update never was: never reuse its seq
    const last = checkpoints.at(-1);
    if (last) parsed.nextSeq = Math.max(parsed.nextSeq, last.seq + 1);
    return { head: parsed, checkpoints };
  }

  async #setHead(head: TimelineHead): Promise<void> {
    await this.store.putRecord(this.sessionId, HEAD_KEY, JSON.stringify(head));
  }

  /** Every checkpoint kept, oldest first. */
  async list(): Promise<Checkpoint[]> {
    return (await this.#read()).checkpoints;
  }

  /** The checkpoint with this id, or undefined (a malformed id too). */
  async get(id: string): Promise<Checkpoint | undefined> {
    const seq = seqOfCheckpointId(id);
    if (seq === undefined) return undefined;
    const key = checkpointKey(seq);
    const record = (await this.store.records(this.sessionId)).find((r) => r.key === key);
    return record && parseCheckpoint(record.json, record.key);
  }

  /**
   * Takes a checkpoint of `state` (and of the workspace, as it is on disk now) after the head, on the
   * head's branch, then applies the retention policy.
   */
  async record(state: AgentState, options: RecordOptions): Promise<Checkpoint> {
    const { head, checkpoints } = await this.#read();
    const previous = checkpoints.find((checkpoint) => checkpoint.id === head.at);
    const { blobs, stateBlob, context } = stateBlobs(state, this.#lastContext);
    let addedBytes = await this.store.putBlobs(this.sessionId, blobs);
    let workspace: Checkpoint["workspace"];
    if (this.workspace !== undefined) {
      const taken = await snapshotWorkspace(this.store, this.sessionId, this.workspace, {
        ...(this.#options.exclude ? { exclude: this.#options.exclude } : {}),
        cache: this.#cache,
      });
      addedBytes += taken.addedBytes;
      workspace = { status: "kept", ...taken.snapshot };
    }
    let memory: Checkpoint["memory"];
    if (this.#options.memory) {
      const taken = await snapshotMemory(this.store, this.sessionId, this.#options.memory);
      addedBytes += taken.addedBytes;
      memory = { snapshot: taken.snapshot };
    }
    const last = state.context.at(-1);
    const seq = head.nextSeq;
    const checkpoint: Checkpoint = {
      id: checkpointId(seq),
      sessionId: this.sessionId,
      seq,
      kind: options.kind,
      createdAt: new Date(this.#now()).toISOString(),
      branch: head.branch,
      ...(head.at ? { parent: head.at } : {}),
      stateVersion: options.stateVersion,
      ...(options.logSeq !== undefined ? { logSeq: options.logSeq } : {}),
      messages: state.context.length,
      ...(last ? { lastMessage: { id: last.id, role: last.role, text: textOf(last).slice(0, 200) } } : {}),
      ...(state.replyContext?.waitingFor ? { waitingFor: state.replyContext.waitingFor } : {}),
      stateBlob,
      contextBlob: context.blob,
      ...(workspace ? { workspace } : {}),
      grants: state.permission.rules.filter(
        (rule) => rule.source === "confirmation" || rule.source === "session",
      ),
      memoryWrites: this.#memoryWrites(state, previous),
      ...(memory ? { memory } : {}),
      addedBytes,
    };
    await this.store.putRecord(this.sessionId, checkpointKey(seq), JSON.stringify(checkpoint));
    this.#lastContext = context;
    await this.#setHead({ ...head, at: checkpoint.id, nextSeq: seq + 1 });
    await this.#prune([...checkpoints, checkpoint]);
    return checkpoint;
  }

  /** The state the checkpoint holds (its session id this session's). CheckpointUnavailableError when a blob is gone. */
  async state(checkpoint: Checkpoint): Promise<AgentState> {
    return loadCheckpointState(this.store, this.sessionId, checkpoint);
  }

  /**
   * Makes `root` (default the session's workspace) hold the checkpoint's snapshot. A checkpoint whose
   * snapshot was pruned, or a session without a workspace, is refused before anything changes.
   */
  async restoreFiles(checkpoint: Checkpoint, root = this.workspace): Promise<RestoreSummary | undefined> {
    if (!checkpoint.workspace || root === undefined) return undefined;
    if (checkpoint.workspace.status === "pruned")
      throw new CheckpointUnavailableError(
        `its workspace snapshot was pruned by the retention policy at ${checkpoint.workspace.prunedAt}`,
      );
    return restoreWorkspace(this.store, this.sessionId, root, checkpoint.workspace.tree, this.#options);
  }

  /** Checks, without changing anything, that the checkpoint restores whole: its state loads and its snapshot is kept. */
  async assertRestorable(checkpoint: Checkpoint): Promise<AgentState> {
    if (checkpoint.workspace?.status === "pruned" && this.workspace !== undefined)
      throw new CheckpointUnavailableError(
        `its workspace snapshot was pruned by the retention policy at ${checkpoint.workspace.prunedAt}`,
      );
    return this.state(checkpoint);
  }

  /**
   * Reverts the memory writes `writes` to the checkpoint's memory snapshot (see revertMemoryWrites).
   * A timeline without memory, or a checkpoint taken without it, is refused before anything changes.
   */
  async revertMemory(checkpoint: Checkpoint, writes: readonly MemoryWrite[]): Promise<string[]> {
    const memory = this.#options.memory;
    if (!memory || !checkpoint.memory)
      throw new CheckpointUnavailableError(
        memory
          ? "it was taken without a snapshot of the memory directory, so its memory writes cannot be reverted"
          : "this session's checkpoints are kept without its memory directory, so memory writes cannot be reverted",
      );
    return revertMemoryWrites(this.store, this.sessionId, memory, checkpoint.memory.snapshot, writes);
  }

  /** Whether a rewind to the checkpoint can revert memory writes (see revertMemory). */
  canRevertMemory(checkpoint: Checkpoint): boolean {
    return this.#options.memory !== undefined && checkpoint.memory !== undefined;
  }

  /** Starts a new branch at `from`: the next checkpoint follows it. Answers the branch's name. */
  async branchAt(from: Checkpoint): Promise<string> {
    const head = await this.head();
    const branch = newId("branch");
    await this.#setHead({
      ...head,
      branch,
      at: from.id,
      branches: {
        ...head.branches,
        [branch]: { from: from.id, createdAt: new Date(this.#now()).toISOString() },
      },
    });
    this.#lastContext = undefined;
    return branch;
  }

  /** Marks this session as a fork of another's checkpoint. */
  async setOrigin(origin: { sessionId: string; checkpoint: string }): Promise<void> {
    await this.#setHead({ ...(await this.head()), origin });
  }

  /** Applies the retention policy now (`record` does after every checkpoint). */
  async prune(): Promise<void> {
    await this.#prune(await this.list());
  }

  async #prune(checkpoints: Checkpoint[]): Promise<void> {
    const sizes = await this.store.blobSizes(this.sessionId);
    const plan = await planPrune(checkpoints, sizes, this.#reachable, this.#retention, this.#now());
    const prunedAt = new Date(this.#now()).toISOString();
    for (const checkpoint of plan.pruneSnapshots) {
      if (checkpoint.workspace?.status !== "kept") continue;
      const { files, bytes } = checkpoint.workspace;
      const pruned: Checkpoint = { ...checkpoint, workspace: { status: "pruned", files, bytes, prunedAt } };
      await this.store.putRecord(this.sessionId, checkpointKey(checkpoint.seq), JSON.stringify(pruned));
    }
    if (plan.drop.length > 0)
      await this.store.deleteRecords(
        this.sessionId,
        plan.drop.map((checkpoint) => checkpointKey(checkpoint.seq)),
      );
    if (plan.deleteBlobs.length > 0) await this.store.deleteBlobs(this.sessionId, plan.deleteBlobs);
  }

  /** Bytes of every blob the session's checkpoints hold. */
  async storedBytes(): Promise<number> {
    let total = 0;
    for (const size of (await this.store.blobSizes(this.sessionId)).values()) total += size;
    return total;
  }

  /** Removes every checkpoint and blob of the session. */
  async clear(): Promise<void> {
    this.#lastContext = undefined;
    await this.store.deleteSession(this.sessionId);
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** The memory tool's writing calls among the messages added since `previous`. */
  #memoryWrites(state: AgentState, previous: Checkpoint | undefined): MemoryWrite[] {
    const from = previous && previous.messages <= state.context.length ? previous.messages : 0;
    const tool = this.#options.memoryTool ?? "Memory";
    const writes: MemoryWrite[] = [];
    for (const msg of state.context.slice(from)) {
      for (const block of msg.content) {
        if (block.type !== "tool_call" || block.name !== tool) continue;
        let input: { command?: unknown; path?: unknown; old_path?: unknown; new_path?: unknown };
        try {
          input = JSON.parse(block.input) as typeof input;
        } catch {
          continue;
        }
        if (typeof input.command !== "string" || !WRITES.has(input.command)) continue;
        const path = typeof input.path === "string" ? input.path : input.old_path;
        writes.push({
          toolCallId: block.id,
          command: input.command,
          ...(typeof path === "string" ? { path } : {}),
          ...(typeof input.new_path === "string" ? { newPath: input.new_path } : {}),
        });
      }
    }
    return writes;
  }
}
