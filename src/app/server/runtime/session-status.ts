import type { Msg, ToolCallBlock } from "../../../message/index.js";
import type { SessionStatus } from "../../../protocol/index.js";
import type { AgentState } from "../../../state/index.js";
import type { ServiceBackend } from "../backend/types.js";
import { sessionNotFound } from "../request-error.js";
import { logEndsOpen } from "./recover-session.js";

/** Where a session stands: running somewhere, waiting for an answer, or idle (the protocol's type). */
export type { SessionStatus };

export function sessionStatus(
  state: AgentState,
  agent: string,
  running: boolean,
  lastEventId: number,
): SessionStatus {
  const status: SessionStatus = {
    sessionId: state.sessionId,
    agent,
    running,
    pendingToolCalls: [],
    lastEventId,
    messageCount: state.context.length,
  };
  const reply = state.replyContext;
  if (reply) {
    status.replyId = reply.replyId;
    if (reply.waitingFor) {
      status.waitingFor = reply.waitingFor;
      const msg: Msg | undefined = state.context.findLast((m) => m.id === reply.replyId);
      status.pendingToolCalls = (msg?.content ?? []).filter(
        (b): b is ToolCallBlock =>
          b.type === "tool_call" && (b.state === "asking" || b.state === "submitted"),
      );
    }
  }
  return status;
}

/** The session's state as stored (`not_found` when it has none). */
export async function loadState(backend: ServiceBackend, sessionId: string): Promise<AgentState> {
  const stored = await backend.store.load(sessionId);
  if (!stored) throw sessionNotFound(sessionId);
  return stored.state;
}

/**
 * Where the session stands now; a reply whose run died (cut off, or its log ends open with no run
 * holding the lock) is closed with `recover` first and read again, so every backend says the same.
 */
export async function currentStatus(
  backend: ServiceBackend,
  sessionId: string,
  agent: string,
  recover: () => Promise<unknown>,
): Promise<SessionStatus> {
  const read = () =>
    Promise.all([
      loadState(backend, sessionId),
      backend.locks.isHeld(sessionId),
      backend.events.lastSeq(sessionId),
    ]);
  let [state, running, last] = await read();
  const cutOff = state.replyContext !== undefined && !state.replyContext.waitingFor;
  if (!running && (cutOff || (await logEndsOpen(backend, sessionId)))) {
    await recover();
    [state, running, last] = await read();
  }
  return sessionStatus(state, agent, running, last);
}
