import type { Msg, ToolCallBlock } from "../../../message/index.js";
import type { AgentState, WaitingFor } from "../../../state/index.js";

/** Where a session stands: running somewhere, waiting for an answer, or idle. */
export interface SessionStatus {
  sessionId: string;
  agent: string;
  /** A run holds the session (on this replica or another). */
  running: boolean;
  waitingFor?: WaitingFor;
  /** The reply in flight (running, paused or cut off). */
  replyId?: string;
  /** Calls waiting for a confirmation (`asking`) or an external result (`submitted`). */
  pendingToolCalls: ToolCallBlock[];
  /** The newest event id in the session's log (0 when none). */
  lastEventId: number;
  messageCount: number;
}

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
