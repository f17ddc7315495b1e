import type { z } from "zod";
import type { AgentEvent } from "../event/index.js";
import { newId } from "../message/index.js";
import {
  type AgentState,
  type AgentStateStore,
  type Checkpoint,
  type CheckpointMemory,
  type CheckpointRetention,
  type CheckpointStore,
  forkFrom,
  type RewindOptions,
  type RewindResult,
  rewindTo,
  SessionTimeline,
  type SnapshotScope,
} from "../state/index.js";
import type { Agent, ReplyMsg } from "./agent.js";
import { SessionBusyError } from "./errors.js";
import { recoverCutOffReply } from "./recover.js";
import type { CheckpointReason, ReplyInput, ReplyOptions } from "./types.js";

export interface OpenSessionOptions {
  /**
   * Repair a reply that was cut off mid-flight (default true): finished results are kept, calls that
   * were running are closed as `interrupted`, and the repair is saved. Only safe while no other
   * process runs a reply on this session (a service takes its session lock first).
   */
  recover?: boolean;
  /** Take a checkpoint at every reply end and pause, so the session can be forked and rewound. */
  checkpoints?: SessionCheckpointOptions;
}

/** Where a session keeps its checkpoints, and what they hold. */
export interface SessionCheckpointOptions extends SnapshotScope {
  store: CheckpointStore;
  /** The session's workspace directory: snapshotted at each checkpoint, restored by a rewind. */
  workspace?: string;
  retention?: CheckpointRetention;
  /**
   * The memory directory its Memory tool writes (agentscope/memory's MemoryFiles): snapshotted at
   * each checkpoint, so `rewind(to, { memory: "revert" })` can revert the writes made after it.
   */
  memory?: CheckpointMemory;
}

/** Where a fork goes: its session id (default a new one) and its own workspace directory. */
export interface ForkOptions {
  sessionId?: string;
  /** Required when the session has a workspace: the fork's copy is written there. */
  workspace?: string;
}

/**
 * A durable session: an agent, a store and a session id. Every reply checkpoints the state with
 * compare-and-set at each step that matters (reply start, after each model call and tool result, at
 * a pause, at the end), so a killed process loses at most the step in flight, and a paused reply
 * resumes from any process that opens the session.
 */
export class Session {
  private constructor(
    readonly agent: Agent,
    readonly store: AgentStateStore,
    private current: AgentState,
    private storedVersion: number,
    private readonly checkpointing?: SessionCheckpointOptions,
  ) {
    this.#timeline = checkpointing && timelineOf(current.sessionId, checkpointing);
  }

  readonly #timeline: SessionTimeline | undefined;
  /** Replies running now (a rewind is refused meanwhile). */
  #running = 0;

  static async open(
    agent: Agent,
    store: AgentStateStore,
    sessionId: string,
    options: OpenSessionOptions = {},
  ): Promise<Session> {
    const loaded = await store.load(sessionId);
    const session = new Session(
      agent,
      store,
      loaded?.state ?? agent.createState(sessionId),
      loaded?.version ?? 0,
      options.checkpoints,
    );
    if (loaded && options.recover !== false && recoverCutOffReply(session.current)) await session.save();
    return session;
  }

  get sessionId(): string {
    return this.current.sessionId;
  }

  get state(): AgentState {
    return this.current;
  }

  /** The version last saved or loaded; 0 when the session was never saved. */
  get version(): number {
    return this.storedVersion;
  }

  /** Saves the state now. Throws StateConflictError if another process saved since. */
  async save(): Promise<void> {
    const { version } = await this.store.save(this.current.sessionId, this.current, {
      expectedVersion: this.storedVersion,
    });
    this.storedVersion = version;
  }

  /** Reloads the state from the store (e.g. after another process changed it). */
  async reload(): Promise<void> {
    const loaded = await this.store.load(this.current.sessionId);
    if (!loaded) throw new Error(`session "${this.current.sessionId}" is not in the store`);
    this.current = loaded.state;
    this.storedVersion = loaded.version;
  }

  replyStream<S extends z.ZodType | undefined = undefined>(
    input?: ReplyInput,
    options: Omit<ReplyOptions<S>, "state" | "checkpoint"> = {},
  ): AsyncGenerator<AgentEvent> {
    // without checkpoints nothing needs to know when the stream ends: the agent's own generator
    if (!this.#timeline)
      return this.agent.replyStream(input, { ...options, state: this.current, checkpoint: this.#checkpoint });
    return this.#trackedStream(input, options);
  }

  async *#trackedStream<S extends z.ZodType | undefined = undefined>(
    input: ReplyInput | undefined,
    options: Omit<ReplyOptions<S>, "state" | "checkpoint">,
  ): AsyncGenerator<AgentEvent> {
    this.#running++;
    try {
      yield* this.agent.replyStream(input, { ...options, state: this.current, checkpoint: this.#checkpoint });
    } finally {
      this.#running--;
    }
  }

  async reply<S extends z.ZodType | undefined = undefined>(
    input?: ReplyInput,
    options: Omit<ReplyOptions<S>, "state" | "checkpoint"> = {},
  ): Promise<ReplyMsg<S>> {
    this.#running++;
    try {
      return await this.agent.reply(input, { ...options, state: this.current, checkpoint: this.#checkpoint });
    } finally {
      this.#running--;
    }
  }

  /** Whether a reply of this object is running now. */
  get running(): boolean {
    return this.#running > 0;
  }

  /** The session's checkpoints (a session opened without `checkpoints` has none). */
  get timeline(): SessionTimeline | undefined {
    return this.#timeline;
  }

  /** Every checkpoint kept, oldest first. */
  async checkpoints(): Promise<Checkpoint[]> {
    return (await this.#timelineFor("checkpoints")).list();
  }

  /**
   * Moves the session back to a checkpoint, in place: conversation, reply, grants, tool data and the
   * workspace files become the checkpoint's; the session as it was is checkpointed first and stays
   * on its branch (`result.undo` rewinds back to it). A paused reply rewound away is closed. Refused
   * (SessionBusyError) while a reply runs; a pruned checkpoint is refused before anything changes.
   * Memory writes made since stay made (the checkpoints list them), unless `options.memory` is
   * `revert` (the checkpoints need `memory`): then the paths they wrote are put back as they were.
   */
  async rewind(to: string | Checkpoint, options: RewindOptions = {}): Promise<RewindResult> {
    const timeline = await this.#timelineFor("rewind");
    if (this.running) throw new SessionBusyError(this.sessionId, "a rewind");
    const target = await this.#find(timeline, to);
    const result = await rewindTo(
      timeline,
      target,
      {
        state: this.current,
        version: this.storedVersion,
        save: async (state, expectedVersion) => {
          const { version } = await this.store.save(this.sessionId, state, { expectedVersion });
          return version;
        },
      },
      options,
    );
    this.current = result.state;
    this.storedVersion = result.version;
    return result;
  }

  /**
   * A new session from a checkpoint of this one: the conversation up to it, a copy of the workspace
   * as it was (into `options.workspace`), the grants as they were; linked to its origin (its
   * timeline's `head().origin`). Saved in the same stores; the two are independent afterwards.
   */
  async fork(at: string | Checkpoint, options: ForkOptions = {}): Promise<Session> {
    const timeline = await this.#timelineFor("fork");
    const checkpointing = this.checkpointing!;
    if (checkpointing.workspace !== undefined && options.workspace === undefined)
      throw new TypeError("fork: this session has a workspace; pass the fork's own `workspace` directory");
    const target = await this.#find(timeline, at);
    const sessionId = options.sessionId ?? newId("session");
    const forkOptions: SessionCheckpointOptions = { ...checkpointing };
    if (options.workspace !== undefined) forkOptions.workspace = options.workspace;
    else delete forkOptions.workspace;
    const forked = await forkFrom(timeline, target, {
      timeline: timelineOf(sessionId, forkOptions),
      save: async (state) => (await this.store.save(sessionId, state, { expectedVersion: 0 })).version,
    });
    return new Session(this.agent, this.store, forked.state, forked.version, forkOptions);
  }

  /** Saves at every step; at a reply end or pause, also takes a checkpoint. */
  readonly #checkpoint = async (_state: AgentState, reason: CheckpointReason): Promise<void> => {
    await this.save();
    if (this.#timeline && (reason === "reply_end" || reason === "pause"))
      await this.#timeline.record(this.current, { kind: reason, stateVersion: this.storedVersion });
  };

  async #timelineFor(what: string): Promise<SessionTimeline> {
    if (!this.#timeline)
      throw new TypeError(
        `${what}: open the session with \`checkpoints\` (Session.open(..., { checkpoints }))`,
      );
    return this.#timeline;
  }

  async #find(timeline: SessionTimeline, at: string | Checkpoint): Promise<Checkpoint> {
    const id = typeof at === "string" ? at : at.id;
    const found = await timeline.get(id);
    if (!found) throw new RangeError(`session "${this.sessionId}" has no checkpoint "${id}"`);
    return found;
  }
}

function timelineOf(sessionId: string, options: SessionCheckpointOptions): SessionTimeline {
  return new SessionTimeline({
    store: options.store,
    sessionId,
    ...(options.workspace !== undefined ? { workspace: options.workspace } : {}),
    ...(options.retention ? { retention: options.retention } : {}),
    ...(options.exclude ? { exclude: options.exclude } : {}),
    ...(options.memory ? { memory: options.memory } : {}),
  });
}
