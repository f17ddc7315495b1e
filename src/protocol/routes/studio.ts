import { RunToolBody } from "../request-schemas.js";
import { answer, jsonBody, type Route } from "../route.js";
import type { AgentProfile, SessionEvalCase, SessionStateVersion, ToolTrial } from "../studio-types.js";

/** The studio: a session as an eval case, its agent and state inspected, a tool run by hand. */
export const STUDIO_ROUTES = {
  sessionEvalCase: {
    method: "GET",
    path: "/v1/sessions/{id}/eval-case",
    summary: "The session (or one finished reply) as an eval case, for `agentscope eval`",
    auth: "bearer",
    query: {
      replyId: { type: "string", description: "record only this reply (default: every reply)" },
      caseId: { type: "string", description: "the case's id (default: derived from the session or reply)" },
    },
    answer: answer<SessionEvalCase>(200, "`{ case, jsonl, fileName }`"),
  },
  inspectAgent: {
    method: "GET",
    path: "/v1/sessions/{id}/agent",
    summary:
      "The session's agent as the next model call sees it: system prompt, model, tools, rules, middleware",
    auth: "bearer",
    answer: answer<AgentProfile>(200, "AgentProfile"),
  },
  sessionState: {
    method: "GET",
    path: "/v1/sessions/{id}/state",
    summary: "The session's agent state as stored, with its store version (the studio's state inspector)",
    auth: "bearer",
    query: { checkpoint: { type: "string", description: "a checkpoint's id (`cp-3`): the state it holds" } },
    answer: answer<SessionStateVersion>(200, "`{ version, readAt, state }`"),
  },
  runTool: {
    method: "POST",
    path: "/v1/sessions/{id}/tools/{name}/run",
    summary:
      "Run one of the session agent's tools by hand, through the permission gate (the studio's playground)",
    auth: "bearer",
    body: jsonBody(RunToolBody, "tool run", true),
    answer: answer<ToolTrial>(200, "`{ tool, decision, ran, approvedBy?, result? }`"),
  },
} as const satisfies Record<string, Route>;
