import {
  type Answerer,
  type ConfirmResult,
  externalExecutionResult,
  type UserConfirmResultEvent,
  userConfirmResult,
  userInterrupt,
} from "../../../event/index.js";
import type { ToolResultBlock } from "../../../message/index.js";
import type { ConfirmAnswer } from "../../../protocol/index.js";
import type { AgentState } from "../../../state/index.js";
import { RequestError } from "../request-error.js";
import { confirmResultsOf } from "./confirm-answers.js";
import type { RunInput } from "./run-execution.js";

// What an answer to a paused reply runs: each built against the state the run loads under its lease,
// so the reply it answers and the calls it names are the ones waiting then.

/** The reply waiting for an answer (`invalid_state` when none waits). */
export function waitingReplyId(state: AgentState): string {
  const reply = state.replyContext;
  if (!reply?.waitingFor)
    throw new RequestError(
      "invalid_state",
      `session "${state.sessionId}" has no reply waiting for an answer`,
    );
  return reply.replyId;
}

/** Answers to waiting confirmations by tool call id; a call not waiting is refused, nothing changes. */
export function confirmInput(
  answers: ConfirmAnswer[],
  replyId: string | undefined,
  by: Answerer,
): (state: AgentState) => UserConfirmResultEvent {
  return (state) =>
    userConfirmResult({
      replyId: replyId ?? waitingReplyId(state),
      confirmResults: confirmResultsOf(answers, state),
      answeredBy: by,
    });
}

/** Answers in USER_CONFIRM_RESULT's own form (the calls given in full). */
export function confirmResultsInput(
  confirmResults: ConfirmResult[],
  replyId: string | undefined,
  by: Answerer,
): (state: AgentState) => UserConfirmResultEvent {
  return (state) =>
    userConfirmResult({ replyId: replyId ?? waitingReplyId(state), confirmResults, answeredBy: by });
}

/** The results of calls that were submitted for external execution. */
export function externalResultsInput(
  toolResults: ToolResultBlock[],
  replyId: string | undefined,
  by: Answerer,
): RunInput {
  return (state) =>
    externalExecutionResult({ replyId: replyId ?? waitingReplyId(state), toolResults, answeredBy: by });
}

/** Ends a paused reply with USER_INTERRUPT (`invalid_state` when no reply waits). */
export function interruptInput(sessionId: string, reason: string): RunInput {
  return (state) => {
    const reply = state.replyContext;
    if (!reply?.waitingFor)
      throw new RequestError("invalid_state", `session "${sessionId}" has no reply to interrupt`);
    return userInterrupt({ replyId: reply.replyId, reason });
  };
}
