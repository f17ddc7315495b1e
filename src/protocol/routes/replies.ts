import type { InterruptResult } from "../reply-types.js";
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
    answer: runStarted,
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
  interrupt: {
    method: "POST",
    path: "/v1/sessions/{id}/interrupt",
    summary: "Interrupt the running or paused reply",
    auth: "bearer",
    body: jsonBody(InterruptBody, "interrupt"),
    answer: answer<InterruptResult>(202, "`{ was: running | paused, replyId?, after? }`"),
  },
} as const satisfies Record<string, Route>;
