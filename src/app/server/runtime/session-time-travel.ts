import type { CheckpointReason } from "../../../agent/index.js";
import { createEvent } from "../../../event/index.js";
import type { CheckpointInfo, CheckpointList, ForkAnswer, RewindAnswer } from "../../../protocol/index.js";
import {
  type AgentState,
  type Checkpoint,
  type CheckpointMemory,
  type CheckpointRetention,
  type CheckpointStore,
  CheckpointUnavailableError,
  forkFrom,
  type MemoryOnRewind,
  rewindTo,
  SessionTimeline,
} from "../../../state/index.js";
import type { ServiceBackend, SessionRecord } from "../backend/types.js";
import { RequestError } from "../request-error.js";
import type { ServiceLog } from "./service-log.js";

/** Where the service keeps checkpoints and which sessions' files they hold. */
export interface ServiceCheckpointOptions {
  store: CheckpointStore;
  /** A session's workspace directory, whose files its checkpoints hold; undefined: the state only. */
  workspaceOf?: (record: SessionRecord) => string | undefined;
  retention?: CheckpointRetention;
  /**
   * The memory directory a session's Memory tool writes (undefined: none): snapshotted at each
   * checkpoint, so a rewind can revert the memory writes made after it.
   */
  memoryOf?: (record: SessionRecord) => CheckpointMemory | undefined;
}

/** What the time-travel routes need of the runtime (kept narrow: the runtime passes itself). */
export interface TimeTravelHost {
  getSession(user: string, sessionId: string): Promise<SessionRecord>;
  createSession(
    user: string,
    options: { sessionId?: string; title?: string; agent?: string },
  ): Promise<SessionRecord>;
  deleteSession(user: string, sessionId: string): Promise<void>;
}

const TIMELINES_KEPT = 1000;

/**
 * The service's checkpoints: one at every session's start, reply end and pause (taken by the run,
 * under its lease), and the rewinds and forks of the routes. A rewind takes the session's run lock
 * (refused while a reply runs on any replica) and closes, in the log, a paused reply it rewinds away.
 */
export class SessionTimeTravel {
  readonly #timelines = new Map<string, SessionTimeline>();

  constructor(
    private readonly backend: ServiceBackend,
    private readonly options: ServiceCheckpointOptions,
    private readonly log: ServiceLog,
  ) {}

  /** The session's timeline (kept per session so a checkpoint rehashes only the files that changed). */
  timelineOf(record: SessionRecord): SessionTimeline {
    let timeline = this.#timelines.get(record.sessionId);
    if (!timeline) {
      const workspace = this.options.workspaceOf?.(record);
      const memory = this.options.memoryOf?.(record);
      timeline = new SessionTimeline({
        store: this.options.store,
        sessionId: record.sessionId,
        ...(workspace !== undefined ? { workspace } : {}),
        ...(memory !== undefined ? { memory } : {}),
        ...(this.options.retention ? { retention: this.options.retention } : {}),
      });
      if (this.#timelines.size >= TIMELINES_KEPT)
        this.#timelines.delete(this.#timelines.keys().next().value!);
      this.#timelines.set(record.sessionId, timeline);
    }
    return timeline;
  }

  /** A checkpoint of a run's state at a reply end or pause (its final save gives `version`); a failure is logged. */
  async atBoundary(
    sessionId: string,
    state: AgentState,
    reason: CheckpointReason,
    version: number,
  ): Promise<void> {
    if (reason !== "reply_end" && reason !== "pause") return;
    try {
      const record = await this.backend.sessions.get(sessionId);
      if (!record) return;
      const logSeq = await this.backend.events.lastSeq(sessionId);
      await this.timelineOf(record).record(state, { kind: reason, stateVersion: version, logSeq });
    } catch (error) {
      this.log({ level: "error", sessionId, message: `checkpoint failed: ${(error as Error).message}` });
    }
  }

  /** The checkpoint of a new session (an empty conversation), so even its first message can be edited. */
  async atStart(record: SessionRecord, state: AgentState): Promise<void> {
    await this.timelineOf(record).record(state, { kind: "start", stateVersion: 1, logSeq: 0 });
  }

  async list(record: SessionRecord): Promise<CheckpointList> {
    const timeline = this.timelineOf(record);
    const head = await timeline.head();
    return {
      checkpoints: (await timeline.list()).map(checkpointInfo),
      head: {
        branch: head.branch,
        ...(head.at ? { at: head.at } : {}),
        ...(head.origin ? { origin: head.origin } : {}),
        branches: head.branches,
      },
      files: timeline.workspace !== undefined,
      memory: this.options.memoryOf?.(record) !== undefined,
    };
  }

  /**
   * Rewinds the session to a checkpoint under its run lock; `memory: "revert"` also puts back the
   * memory writes made since (refused, `invalid_state`, on checkpoints without a memory snapshot).
   */
  async rewind(
    record: SessionRecord,
    checkpointId: string,
    options: { memory?: MemoryOnRewind } = {},
  ): Promise<RewindAnswer> {
    const { sessionId } = record;
    const lease = await this.backend.locks.acquire(sessionId);
    if (!lease)
      throw new RequestError(
        "run_in_progress",
        `session "${sessionId}" is running a reply; a rewind must wait until it ends or is interrupted`,
      );
    try {
      const timeline = this.timelineOf(record);
      const target = await this.#checkpoint(timeline, checkpointId);
      const stored = await this.backend.store.load(sessionId);
      if (!stored) throw new RequestError("not_found", `session "${sessionId}" has no state`);
      const logSeq = await this.backend.events.lastSeq(sessionId);
      const result = await unavailableAsInvalid(() =>
        rewindTo(
          timeline,
          target,
          {
            state: stored.state,
            version: stored.version,
            logSeq,
            save: async (state, expectedVersion) =>
              (await this.backend.store.save(sessionId, state, { expectedVersion })).version,
          },
          options.memory ? { memory: options.memory } : {},
        ),
      );
      if (result.closedReply) {
        // the paused reply's end, so the log no longer says it waits (and followers hear it)
        const end = createEvent("REPLY_END", { replyId: result.closedReply, finishedReason: "interrupted" });
        const logged = await this.backend.events.append(sessionId, [end], lease);
        await this.backend.bus.publish({ sessionId, kind: "events", events: logged });
      }
      return {
        checkpoint: target.id,
        undo: result.undo.id,
        branch: result.branch,
        messages: result.state.context.length,
        ...(result.files ? { files: result.files } : {}),
        ...(result.closedReply ? { closedReply: result.closedReply } : {}),
        ...(result.memoryReverted ? { memoryReverted: result.memoryReverted } : {}),
      };
    } finally {
      await lease.release();
    }
  }

  /** A new session of the same user and agent from a checkpoint. */
  async fork(
    host: TimeTravelHost,
    record: SessionRecord,
    body: { checkpoint: string; sessionId?: string; title?: string },
  ): Promise<ForkAnswer> {
    const origin = this.timelineOf(record);
    const target = await this.#checkpoint(origin, body.checkpoint);
    const created = await host.createSession(record.owner, {
      agent: record.agent,
      title: body.title ?? `${record.title ?? record.sessionId} (fork)`,
      ...(body.sessionId !== undefined ? { sessionId: body.sessionId } : {}),
    });
    try {
      // the new session's start checkpoint is replaced by the fork's own
      const timeline = this.timelineOf(created);
      await timeline.clear();
      const fork = await unavailableAsInvalid(() =>
        forkFrom(origin, target, {
          timeline,
          save: async (state) =>
            (await this.backend.store.save(created.sessionId, state, { expectedVersion: 1 })).version,
        }),
      );
      return {
        session: created,
        origin: { sessionId: record.sessionId, checkpoint: target.id },
        checkpoint: fork.checkpoint.id,
      };
    } catch (error) {
      await host.deleteSession(record.owner, created.sessionId).catch(() => {});
      throw error;
    }
  }

  /**
   * The checkpoint just before the user message `messageId` of the conversation as it is: the newest
   * whose conversation is the messages before it.
   */
  async before(record: SessionRecord, context: AgentState["context"], messageId: string): Promise<string> {
    const index = context.findIndex((msg) => msg.id === messageId);
    if (index < 0) throw new RequestError("not_found", `message "${messageId}" is not in the session`);
    if (context[index]!.role !== "user")
      throw new RequestError(
        "invalid_request",
        `message "${messageId}" is not a user message; only those can be edited`,
      );
    const previous = context[index - 1]?.id;
    const found = (await this.timelineOf(record).list()).findLast(
      (checkpoint) => checkpoint.messages === index && checkpoint.lastMessage?.id === previous,
    );
    if (!found)
      throw new RequestError(
        "invalid_state",
        `no checkpoint is kept from just before message "${messageId}" (pruned, or taken before checkpoints were on)`,
      );
    return found.id;
  }

  /** Drops what the service keeps of a deleted session's checkpoints. */
  async forget(sessionId: string): Promise<void> {
    this.#timelines.delete(sessionId);
    await this.options.store.deleteSession(sessionId);
  }

  /** Closes the checkpoint store. */
  async close(): Promise<void> {
    this.#timelines.clear();
    await this.options.store.close();
  }

  async #checkpoint(timeline: SessionTimeline, id: string): Promise<Checkpoint> {
    const found = await timeline.get(id);
    if (!found)
      throw new RequestError("not_found", `session "${timeline.sessionId}" has no checkpoint "${id}"`);
    return found;
  }
}

/** A checkpoint that cannot be restored whole is the client's `invalid_state`, with the reason. */
async function unavailableAsInvalid<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CheckpointUnavailableError) throw new RequestError("invalid_state", error.message);
    throw error;
  }
}

function checkpointInfo(checkpoint: Checkpoint): CheckpointInfo {
  const { stateBlob: _state, contextBlob: _context, sessionId: _session, workspace, ...rest } = checkpoint;
  if (!workspace) return rest;
  if (workspace.status === "pruned") return { ...rest, workspace };
  const { tree: _tree, ...kept } = workspace;
  return { ...rest, workspace: kept };
}
