import type { InputEvent } from "../event/index.js";
import type { Msg, ToolCallBlock } from "../message/index.js";
import type { AgentState } from "../state/index.js";
import { ReplyStateError } from "./errors.js";
import { openCalls } from "./open-calls.js";

export function isInputEvent(input: unknown): input is InputEvent {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return false;
  const type = (input as { type?: unknown }).type;
  return type === "USER_CONFIRM_RESULT" || type === "EXTERNAL_EXECUTION_RESULT" || type === "USER_INTERRUPT";
}

/** The reply in flight and its assistant Msg, or a clear error when there is none. */
export function pausedReply(state: AgentState, input: InputEvent): Msg {
  const reply = state.replyContext;
  if (!reply) throw new ReplyStateError(`${input.type}: session "${state.sessionId}" has no reply in flight`);
  if (input.replyId && input.replyId !== reply.replyId) {
    throw new ReplyStateError(
      `${input.type} is for reply "${input.replyId}", but the reply in flight is "${reply.replyId}"`,
    );
  }
  const msg = state.context[state.context.length - 1];
  if (!msg || msg.id !== reply.replyId) {
    throw new ReplyStateError(`the state of session "${state.sessionId}" has lost reply "${reply.replyId}"`);
  }
  return msg;
}

/**
 * Checks that every answer in `input` is for a call that is waiting for it (asking for a
 * confirmation; submitted for external execution), that no call is answered twice, and that an
 * answer or an external result names the tool of its call. Throws before anything changes.
 */
export function checkAnswers(msg: Msg, input: InputEvent): void {
  if (input.type === "USER_INTERRUPT") return;
  const waiting = new Map<string, ToolCallBlock>(openCalls(msg).map((call) => [call.id, call]));
  const expected = input.type === "USER_CONFIRM_RESULT" ? "asking" : "submitted";
  const ids =
    input.type === "USER_CONFIRM_RESULT"
      ? input.confirmResults.map((answer) => answer.toolCall.id)
      : input.toolResults.map((result) => result.id);
  if (ids.length === 0) throw new ReplyStateError(`${input.type} carries no answers`);
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new ReplyStateError(`${input.type} answers tool call "${id}" twice`);
    seen.add(id);
    const call = waiting.get(id);
    if (!call) {
      const known = msg.content.some((b) => b.type === "tool_call" && b.id === id);
      throw new ReplyStateError(
        known
          ? `tool call "${id}" is already answered`
          : `unknown tool call "${id}" in reply "${msg.id}" (waiting: ${[...waiting.keys()].join(", ") || "none"})`,
      );
    }
    if (call.state !== expected) {
      throw new ReplyStateError(`tool call "${id}" is ${call.state}, not waiting for ${input.type}`);
    }
  }
  if (input.type === "USER_CONFIRM_RESULT") {
    // An empty name stands for the call's own (a client that only knew the id); another one is wrong.
    for (const answer of input.confirmResults) {
      const call = waiting.get(answer.toolCall.id)!;
      if (answer.toolCall.name !== "" && answer.toolCall.name !== call.name) {
        throw new ReplyStateError(
          `the answer for tool call "${call.id}" names tool "${answer.toolCall.name}", but the call is to "${call.name}"`,
        );
      }
    }
    return;
  }
  if (input.type !== "EXTERNAL_EXECUTION_RESULT") return;
  for (const result of input.toolResults) {
    const call = waiting.get(result.id)!;
    if (result.name !== call.name) {
      throw new ReplyStateError(
        `the external result for tool call "${result.id}" names tool "${result.name}", but the call is to "${call.name}"`,
      );
    }
  }
}
