import type { Answerer, ConfirmResult, InputEvent } from "../../../event/index.js";
import type { ConfirmAnswer } from "../../../protocol/index.js";
import type { AgentState } from "../../../state/index.js";

/**
 * The confirm results for answers given by tool call id, against the paused reply in `state`: each
 * names the call as the reply holds it (its tool and, unless the answer edits it, its input). A call
 * the reply does not hold keeps an empty name, which the agent refuses as not waiting.
 */
export function confirmResultsOf(answers: readonly ConfirmAnswer[], state: AgentState): ConfirmResult[] {
  const msg = state.context.findLast((m) => m.id === state.replyContext?.replyId);
  return answers.map((answer) => {
    const call = msg?.content.find((b) => b.type === "tool_call" && b.id === answer.toolCallId);
    const result: ConfirmResult = {
      confirmed: answer.confirmed,
      toolCall: {
        id: answer.toolCallId,
        name: call?.type === "tool_call" ? call.name : "",
        input: answer.input ?? (call?.type === "tool_call" ? call.input : "{}"),
      },
    };
    if (answer.rules) result.rules = answer.rules;
    if (answer.reason !== undefined) result.reason = answer.reason;
    return result;
  });
}

/** `input` as answered by `by` (the authenticated user): a client never names who answered. */
export function answeredAs(input: InputEvent, by: Answerer): InputEvent {
  if (input.type === "USER_INTERRUPT") return input;
  return { ...input, answeredBy: by };
}
