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
