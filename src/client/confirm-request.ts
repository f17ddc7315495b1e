import type { ConfirmResult } from "../event/types.js";
import type { PendingApproval } from "./session-view.js";
import type { ConfirmAnswer, ConfirmRequest } from "./types.js";

/**
 * The confirm request that answers one pending approval. A top-level call is answered by tool call
 * id (`answers`; the service fills in the call); a sub-agent's call is answered with the full
 * USER_CONFIRM_RESULT form addressed to the sub-run's reply id, which routes it into the sub-agent.
 */
export function confirmRequestFor(approval: PendingApproval, answer: ConfirmAnswer): ConfirmRequest {
  if (approval.source === undefined) return { replyId: approval.replyId, answers: [answer] };
  const result: ConfirmResult = {
    confirmed: answer.confirmed,
    toolCall: { id: approval.id, name: approval.name, input: answer.input ?? approval.input },
  };
  if (answer.rules) result.rules = answer.rules;
  if (answer.reason !== undefined) result.reason = answer.reason;
  return { replyId: approval.replyId, confirmResults: [result] };
}
