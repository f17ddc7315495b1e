import type { ToolResultBlock } from "../message/index.js";
import type { ConfirmResult } from "./confirm-result.js";

/** One answer to a waiting confirmation, by tool call id. */
export interface ConfirmAnswer {
  toolCallId: string;
  confirmed: boolean;
  /** Permission rules to allow from now on (e.g. the event's `suggestedRules`, for "always"). */
  rules?: string[];
  reason?: string;
  /** Edited arguments as JSON text: the call runs with these instead. */
  input?: string;
}

/** What `confirm` takes: answers by tool call id, or the raw USER_CONFIRM_RESULT form. */
export type ConfirmRequest =
  | { replyId?: string; answers: ConfirmAnswer[] }
  | { replyId?: string; confirmResults: ConfirmResult[] };

/** Results for calls the agent handed to the client (REQUIRE_EXTERNAL_EXECUTION). */
export interface ExternalResultsRequest {
  replyId?: string;
  toolResults: ToolResultBlock[];
}

/** `POST /v1/sessions/:id/interrupt`: what the session was doing when asked to stop. */
export interface InterruptResult {
  was: string;
  replyId?: string;
  after?: number;
}

/** A run the service accepted (`202` of replies, confirm, external-results): follow `events` for its events. */
export interface RunStarted {
  sessionId: string;
  replyId: string;
  /** The last event id before the run's first event. */
  after: number;
  /** The path of the session's event stream. */
  events: string;
}

/**
 * What `confirm` answers a named approver who does not own the session (an approver policy lets
 * them answer its asks): the answer was taken to the session's gate; nothing of the session's log
 * is shown to them. Where their answer stands: `GET /v1/approvals`.
 */
export interface ApproverAnswerAccepted {
  sessionId: string;
  replyId: string;
  approver: true;
}

/** One ask that the caller may answer as a named approver in a session they do not own. */
export interface ApprovalRequest {
  sessionId: string;
  /** The paused reply the answer goes to (`replyId` of `confirm`). */
  replyId: string;
  toolCallId: string;
  toolName: string;
  /** The call's arguments (JSON text) as asked: an approver approves or refuses exactly these. */
  input: string;
  /** The approver policy that governs the ask and names the caller. */
  policy: string;
  /** Approvals counted so far toward the policy's quorum, and how many it needs. */
  votes: number;
  needed: number;
  /** The caller has already approved it (their vote is among `votes`). */
  approvedByYou: boolean;
  /** When the ask expires unanswered (ISO 8601), when the policy sets a deadline. */
  expiresAt?: string;
}

/** `GET /v1/approvals`: the asks, in other users' sessions, that the caller may answer. */
export interface ApprovalList {
  approvals: ApprovalRequest[];
}
