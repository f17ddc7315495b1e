import { recoverCutOffReply } from "../../../agent/index.js";
import { type AgentEvent, createEvent, foldEvents } from "../../../event/index.js";
import type { Msg } from "../../../message/index.js";
import type { AgentState, StoredState } from "../../../state/index.js";
import { newestEvent } from "../backend/newest-event.js";
import type { LoggedEvent, RunLease, ServiceBackend } from "../backend/types.js";
import { closingEvents, lastReply } from "./close-cut-off-reply.js";

/** What a recovery attempt found: a run holds the session, it closed a cut-off reply, or nothing to do. */
export type RecoveryOutcome = "running" | "closed" | "idle";

const PAGE = 500;

/**
 * Closes the session's reply if the run that owned it is gone (its lease expired, or its process on
 * this host died): takes the run lock, and if it gets it, runs `closeCutOffReply` under that lease
 * (its writes fenced by it). Safe to call from any replica at any time; a live run keeps its lock, so
 * this never touches a running reply, and of replicas racing for one session only the one that takes
 * the lease closes it. `abandoned`: the caller knows the lease was abandoned (the recovery sweeper),
 * so the lease is taken at once, and released again even when nothing was cut off (which frees it
 * for good: an expired lease is otherwise found again on every sweep).
 */
export async function recoverSession(
  backend: ServiceBackend,
  sessionId: string,
  options: { abandoned?: boolean } = {},
): Promise<RecoveryOutcome> {
  if (!options.abandoned) {
    // Reads first (followers call this often): take the lock only when something looks cut off.
    if (await backend.locks.isHeld(sessionId)) return "running";
    if (!(await looksCutOff(backend, sessionId))) return "idle";
  }
  const lease = await backend.locks.acquire(sessionId);
  if (!lease) return "running";
  try {
    return (await closeCutOffReply(backend, sessionId, undefined, lease)).closed ? "closed" : "idle";
  } finally {
    await lease.release().catch(() => {});
  }
}

/** Whether the state holds a reply in flight (not paused) or the log ends inside a reply. */
async function looksCutOff(backend: ServiceBackend, sessionId: string): Promise<boolean> {
  const reply = (await backend.store.load(sessionId))?.state.replyContext;
  if (reply?.waitingFor) return false;
  return reply !== undefined || (await logEndsOpen(backend, sessionId));
}

/** What the caller has just read of the log: its newest event (undefined: the log is empty). */
export interface KnownNewest {
  event: LoggedEvent | undefined;
}

/** Whether the log's newest event leaves a reply open (anything but a top-level REPLY_END). */
export async function logEndsOpen(
  backend: ServiceBackend,
  sessionId: string,
  known?: KnownNewest,
): Promise<boolean> {
  const tail = known ? known.event : await newestEvent(backend.events, sessionId);
  return tail !== undefined && !(tail.event.type === "REPLY_END" && tail.event.source === undefined);
}

/**
 * For the holder of the session's run lock: ends a reply that a dead run left open, in the log and in
 * the state, so that followers see REPLY_END live and folding the log still gives the stored Msg.
 * What the log holds of the reply (streamed text and thinking, finished tool results) is kept; open
 * blocks are ended, unfinished calls get `interrupted` results, and REPLY_END says `interrupted`.
 * A reply paused on purpose (waiting for an answer) is left alone. Returns whether it closed one,
 * and the session's state as it is now stored (so the caller need not load it again). `known`: the
 * log's newest event, when the caller has just read it. `lease`: the caller's lease, which fences every
 * write (a FencedError rejects once another replica has the session); with it, the closing events and
 * the save go as one checkpoint where the backend has one (one step: never an end in the log without
 * the state that goes with it).
 */
export async function closeCutOffReply(
  backend: ServiceBackend,
  sessionId: string,
  known?: KnownNewest,
  lease?: RunLease,
): Promise<{ closed: boolean; stored: StoredState | undefined }> {
  const stored = await backend.store.load(sessionId);
  if (!stored) return { closed: false, stored };
  const state = stored.state;
  const cutOff =
    state.replyContext && !state.replyContext.waitingFor ? state.replyContext.replyId : undefined;
  if (state.replyContext?.waitingFor) return { closed: false, stored };
  if (cutOff === undefined && !(await logEndsOpen(backend, sessionId, known)))
    return { closed: false, stored };

  const found = lastReply(await readLog(backend, sessionId));
  const toLog: AgentEvent[] = [];
  let changed = false;
  if (found && !found.ended) {
    const storedMsg = state.context.findLast((m) => m.id === found.replyId);
    // Saved as finished but its REPLY_END never reached the log: log the end the state already has.
    const closing =
      storedMsg?.finishedReason !== undefined && cutOff !== found.replyId
        ? [replyEndOf(storedMsg)]
        : closingEvents(found.events, found.replyId, cutOff === found.replyId ? state : undefined);
    toLog.push(...closing);
    if (cutOff === found.replyId) {
      replaceMsg(state, foldEvents([...found.events, ...closing])!);
      // Effects whose outcome is unknown leave it paused (asked, or retried by the runtime).
      if (!state.replyContext?.waitingFor) delete state.replyContext;
    }
    changed = true;
  }
  // The state's reply is not in the log (trimmed away): repair the state as the agent would, and end it.
  const orphan =
    state.replyContext && !state.replyContext.waitingFor ? state.replyContext.replyId : undefined;
  if (orphan !== undefined && recoverCutOffReply(state)) {
    const msg = state.context.findLast((m) => m.id === orphan);
    if (!state.replyContext) toLog.push(msg ? replyEndOf(msg) : closingEvents([], orphan).at(-1)!);
    changed = true;
  }
  if (!changed) return { closed: false, stored };
  const version = await logAndSave(
    backend,
    sessionId,
    toLog,
    { state, expectedVersion: stored.version },
    lease,
  );
  return { closed: true, stored: { state, version } };
}

/**
 * The closing events logged, then the state saved: one fenced checkpoint where the backend has one,
 * else in turn (the appends fenced by `lease`). Followers are told once the events are logged, even
 * when the save then fails.
 */
async function logAndSave(
  backend: ServiceBackend,
  sessionId: string,
  events: AgentEvent[],
  toSave: { state: AgentState; expectedVersion: number },
  lease: RunLease | undefined,
): Promise<number> {
  const tell = () => backend.bus.publish({ sessionId, kind: "events" }).catch(() => {});
  if (lease && backend.checkpoint) {
    const result = await backend.checkpoint({ sessionId, events, save: toSave, lease });
    if (result.logged.length > 0) await tell();
    if (result.saveError) throw result.saveError;
    return result.version!;
  }
  if (events.length > 0) {
    await (lease
      ? backend.events.append(sessionId, events, lease)
      : backend.events.append(sessionId, events));
    await tell();
  }
  return (await backend.store.save(sessionId, toSave.state, { expectedVersion: toSave.expectedVersion }))
    .version;
}

function replyEndOf(msg: Msg): AgentEvent {
  const event = createEvent("REPLY_END", { replyId: msg.id, finishedReason: msg.finishedReason! });
  if (msg.error !== undefined) event.error = msg.error;
  if (msg.structuredOutput !== undefined) event.structuredOutput = msg.structuredOutput;
  return event;
}

function replaceMsg(state: AgentState, msg: Msg): void {
  const index = state.context.findLastIndex((m) => m.id === msg.id);
  if (index >= 0) state.context[index] = msg;
  else state.context.push(msg);
}

async function readLog(backend: ServiceBackend, sessionId: string): Promise<LoggedEvent[]> {
  const all: LoggedEvent[] = [];
  let after = Math.max(0, (await backend.events.firstSeq(sessionId)) - 1);
  for (;;) {
    const page = await backend.events.read(sessionId, after, PAGE);
    all.push(...page);
    if (page.length < PAGE) return all;
    after = page.at(-1)!.seq;
  }
}
