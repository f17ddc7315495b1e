import type { InputEvent } from "../../../event/index.js";
import type { AgentState } from "../../../state/index.js";
import type { ServiceBackend } from "../backend/types.js";
import { RequestError } from "../request-error.js";
import { openAsks } from "./open-asks.js";
import type { RunInput } from "./run-execution.js";

/**
 * Refuses, before anything runs, an answer naming a call that neither the paused reply holds nor any
 * of its nested runs waits on (`invalid_state`, naming the id and what does wait). The reply checks
 * its own calls itself; a nested run only sees the answer once its parent's call is continued, and
 * refusing it there would end that call (and the genuine ask) with an error result. Calls of the
 * reply itself, and answers when the log keeps no nested ask, are left to the agent.
 */
export async function refuseUnknownNestedCalls(
  backend: ServiceBackend,
  sessionId: string,
  state: AgentState,
  input: InputEvent,
): Promise<void> {
  if (input.type === "USER_INTERRUPT") return;
  const reply = state.replyContext;
  if (!reply?.waitingFor || !reply.suspended) return;
  const msg = state.context.findLast((m) => m.id === reply.replyId);
  const own = new Set((msg?.content ?? []).flatMap((b) => (b.type === "tool_call" ? [b.id] : [])));
  const ids =
    input.type === "USER_CONFIRM_RESULT"
      ? input.confirmResults.map((answer) => answer.toolCall.id)
      : input.toolResults.map((result) => result.id);
  const foreign = ids.filter((id) => !own.has(id));
  if (foreign.length === 0) return;
  const kind = input.type === "USER_CONFIRM_RESULT" ? "confirm" : "external";
  const nested = (await openAsks(backend, sessionId, state)).filter((ask) => ask.source !== undefined);
  if (nested.length === 0) return;
  const known = new Set(nested.filter((ask) => ask.kind === kind).map((ask) => ask.call.id));
  const unknown = foreign.find((id) => !known.has(id));
  if (unknown === undefined) return;
  throw new RequestError(
    "invalid_state",
    `unknown tool call "${unknown}": session "${sessionId}" waits on no such call (waiting: ${[...known].join(", ") || "none"})`,
  );
}

/** `input`, checked by `refuseUnknownNestedCalls` against the state the run loads under its lease. */
export function checkedAnswer(backend: ServiceBackend, sessionId: string, input: RunInput): RunInput {
  return async (state) => {
    const answer = typeof input === "function" ? await input(state) : input;
    // an answer is an input event (a Msg carries no `type`)
    if (answer !== undefined && !Array.isArray(answer) && "type" in answer)
      await refuseUnknownNestedCalls(backend, sessionId, state, answer);
    return answer;
  };
}
