import type { ApprovalList, ApproverAnswerAccepted, InterruptResult, RunStarted } from "../reply-types.js";
import { ConfirmBody, ExternalResultsBody, InterruptBody, ReplyBody } from "../request-schemas.js";
import { answer, jsonBody, type Route } from "../route.js";
import { runLimit, runStarted } from "./run-answers.js";

/** Replies: start one, answer its confirmation or external calls, interrupt it. */
export const REPLY_ROUTES = {
  startReply: {
    method: "POST",
    path: "/v1/sessions/{id}/replies",
    summary: "Start a reply (text or input Msg); empty body continues",
    auth: "bearer",
    body: jsonBody(ReplyBody, "reply request"),
    answer: runStarted,
    alsoAnswers: runLimit,
  },
  confirm: {
    method: "POST",
    path: "/v1/sessions/{id}/confirm",
    summary: "Answer the reply's confirmation request",
    auth: "bearer",
    body: jsonBody(ConfirmBody, "confirmation"),
    answer: answer<RunStarted | ApproverAnswerAccepted>(
      202,
      `${runStarted.description} A named approver who does not own the session (an approver policy lets them answer its asks): 202 \`{ sessionId, replyId, approver: true }\` (JSON, whatever Accept says), and nothing of the session's log; any other answer from them is 404.`,
      "json-or-sse",
    ),
    alsoAnswers: runLimit,
  },
  externalResults: {
    method: "POST",
    path: "/v1/sessions/{id}/external-results",
    summary: "Send results of externally executed tool calls",
    auth: "bearer",
    body: jsonBody(ExternalResultsBody, "external results"),
    answer: runStarted,
    alsoAnswers: runLimit,
  },
  approvals: {
    method: "GET",
    path: "/v1/approvals",
    summary: "The asks in other users' sessions that you may answer (approver policies)",
    auth: "bearer",
    answer: answer<ApprovalList>(
      200,
      "`{ approvals: [{ sessionId, replyId, toolCallId, toolName, input, policy, votes, needed, approvedByYou, expiresAt? }] }`",
    ),
  },
  interrupt: {
    method: "POST",
    path: "/v1/sessions/{id}/interrupt",
    summary: "Interrupt the running or paused reply",
    auth: "bearer",
    body: jsonBody(InterruptBody, "interrupt"),
    answer: answer<InterruptResult>(202, "`{ was: running | paused, replyId?, after? }`"),
  },
} as const satisfies Record<string, Route>;
