import type { Msg, ToolCallBlock } from "../../../message/index.js";
import type { SessionStatus } from "../../../protocol/index.js";
import type { AgentState } from "../../../state/index.js";

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
