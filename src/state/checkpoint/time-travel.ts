import type { AgentState } from "../agent-state.js";
import type { Checkpoint, MemoryWrite } from "./checkpoint.js";
import type { MemoryOnRewind } from "./memory-snapshot.js";
import type { SessionTimeline } from "./session-timeline.js";
import type { RestoreSummary } from "./workspace-restore.js";

/** The session as it is, and how to save the state that replaces it. */
export interface TimeTravelSubject {
  state: AgentState;
  version: number;
  /** Saves the state with compare-and-set at `expectedVersion`; answers the new version. */
  save(state: AgentState, expectedVersion: number): Promise<number>;
  /** The event log's newest seq, where the session has one. */
  logSeq?: number;
}

/** What a rewind did. */
export interface RewindResult {
  /** The checkpoint the session is back at. */
  checkpoint: Checkpoint;
  /** The checkpoint of the session as it was just before: rewind to it to undo this rewind. */
  undo: Checkpoint;
  /** The new branch the session is on (the line rewound away stays as it was). */
  branch: string;
  state: AgentState;
  version: number;
  /** The files rewritten and removed (undefined: no workspace). */
  files?: RestoreSummary;
  /** The reply that was paused (waiting for an answer) and is closed by the rewind. */
  closedReply?: string;
  /** With `memory: "revert"`: the memory files put back as they were (relative to the memory root). */
  memoryReverted?: string[];
}

/** How a rewind goes. */
export interface RewindOptions {
  /**
   * The memory writes made after the checkpoint: `keep` (default) leaves the memory directory as it
   * is; `revert` puts the paths they wrote back as they were at the checkpoint (the timeline needs
   * the session's `memory`; other paths of the directory are left alone).
   */
  memory?: MemoryOnRewind;
}

/**
 * Moves a session back to a checkpoint of its timeline, in place: its state (conversation, reply,
 * permission grants, tool and middleware data) and its workspace files become the checkpoint's.
 * First the session as it is is checkpointed (`undo`), so nothing is lost; a checkpoint that cannot
 * be restored whole (pruned snapshot, missing blob) is refused before anything changes. The caller
 * holds the session's run lock: no reply may run meanwhile.
 */
export async function rewindTo(
  timeline: SessionTimeline,
  target: Checkpoint,
  subject: TimeTravelSubject,
  options: RewindOptions = {},
): Promise<RewindResult> {
  const restored = await timeline.assertRestorable(target);
  const revert = options.memory === "revert";
  if (revert && !timeline.canRevertMemory(target)) await timeline.revertMemory(target, []); // throws why
  const undo = await timeline.record(subject.state, {
    kind: "rewind",
    stateVersion: subject.version,
    ...(subject.logSeq !== undefined ? { logSeq: subject.logSeq } : {}),
  });
  const files = await timeline.restoreFiles(target);
  const memoryReverted = revert
    ? await timeline.revertMemory(target, writesAfter(await timeline.list(), undo, target))
    : undefined;
  const version = await subject.save(restored, subject.version);
  const branch = await timeline.branchAt(target);
  const paused = subject.state.replyContext;
  const closedReply =
    paused?.waitingFor && restored.replyContext?.replyId !== paused.replyId ? paused.replyId : undefined;
  return {
    checkpoint: target,
    undo,
    branch,
    state: restored,
    version,
    ...(files ? { files } : {}),
    ...(closedReply ? { closedReply } : {}),
    ...(memoryReverted ? { memoryReverted } : {}),
  };
}

/**
 * The memory writes that differ between the line ending at `tip` and the one ending at `target`:
 * those of the checkpoints on either side since their common ancestor (a plain rewind: the tip's
 * side only; a switch to another branch: that branch's writes too).
 */
function writesAfter(checkpoints: Checkpoint[], tip: Checkpoint, target: Checkpoint): MemoryWrite[] {
  const byId = new Map(checkpoints.map((checkpoint) => [checkpoint.id, checkpoint]));
  const lineOf = (from: Checkpoint): Checkpoint[] => {
    const line: Checkpoint[] = [];
    const seen = new Set<string>();
    for (
      let at: Checkpoint | undefined = from;
      at && !seen.has(at.id);
      at = at.parent ? byId.get(at.parent) : undefined
    ) {
      seen.add(at.id);
      line.push(at);
    }
    return line;
  };
  const tipLine = lineOf(tip);
  const targetLine = lineOf(target);
  const onTip = new Set(tipLine.map((checkpoint) => checkpoint.id));
  const onTarget = new Set(targetLine.map((checkpoint) => checkpoint.id));
  return [
    ...tipLine.filter((checkpoint) => !onTarget.has(checkpoint.id)),
    ...targetLine.filter((checkpoint) => !onTip.has(checkpoint.id)),
  ].flatMap((checkpoint) => checkpoint.memoryWrites);
}

/** Where a fork goes: its timeline (its session id, store and workspace) and how to save its first state. */
export interface ForkTarget {
  timeline: SessionTimeline;
  /** Saves the fork's first state (expected version 0); answers its version. */
  save(state: AgentState): Promise<number>;
}

/** What a fork made. */
export interface ForkResult {
  state: AgentState;
  version: number;
  /** The fork's first checkpoint (kind `fork`). */
  checkpoint: Checkpoint;
  files?: RestoreSummary;
}

/**
 * Starts a new session from a checkpoint of another: the conversation up to it, a copy of the
 * workspace as it was (into the fork's own workspace), the grants as they were. Paths of the origin's
 * workspace in the permission context are moved to the fork's. The fork's timeline names its origin.
 */
export async function forkFrom(
  origin: SessionTimeline,
  at: Checkpoint,
  target: ForkTarget,
): Promise<ForkResult> {
  const state = relocate(await origin.assertRestorable(at), origin.workspace, target.timeline.workspace);
  state.sessionId = target.timeline.sessionId;
  const files =
    target.timeline.workspace === undefined
      ? undefined
      : await origin.restoreFiles(at, target.timeline.workspace);
  const version = await target.save(state);
  await target.timeline.setOrigin({ sessionId: origin.sessionId, checkpoint: at.id });
  const checkpoint = await target.timeline.record(state, { kind: "fork", stateVersion: version });
  return { state, version, checkpoint, ...(files ? { files } : {}) };
}

/** The state with the permission context's paths under `from` moved under `to`. */
function relocate(state: AgentState, from: string | undefined, to: string | undefined): AgentState {
  if (from === undefined || to === undefined || from === to) return state;
  const move = (path: string) =>
    path === from || path.startsWith(`${from}/`) ? `${to}${path.slice(from.length)}` : path;
  const permission = {
    ...state.permission,
    workingDirectories: state.permission.workingDirectories.map(move),
  };
  if (state.permission.boundary)
    permission.boundary = {
      ...state.permission.boundary,
      directory: move(state.permission.boundary.directory),
    };
  return { ...state, permission };
}
