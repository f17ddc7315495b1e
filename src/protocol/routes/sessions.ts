import type { Msg } from "../../message/index.js";
import type { DecisionList } from "../decision-record.js";
import { CreateSessionBody, RenameSessionBody } from "../request-schemas.js";
import { answer, jsonBody, type Route } from "../route.js";
import type { SessionDetail, SessionInfo, SessionPage, SessionStatus } from "../session-types.js";

/** Sessions: create, list, read, rename, delete; their messages, decisions, status and event stream. */
export const SESSION_ROUTES = {
  createSession: {
    method: "POST",
    path: "/v1/sessions",
    summary: "Create a session",
    auth: "bearer",
    body: jsonBody(CreateSessionBody, "session"),
    answer: answer<SessionInfo>(201, "The session record"),
  },
  listSessions: {
    method: "GET",
    path: "/v1/sessions",
    summary: "List your sessions (paged by cursor)",
    auth: "bearer",
    query: {
      limit: { type: "integer", minimum: 1, maximum: 500, description: "sessions per page (default 50)" },
      cursor: { type: "string", description: "the previous page's `nextCursor`" },
    },
    answer: answer<SessionPage>(200, "`{ sessions, nextCursor? }`"),
  },
  getSession: {
    method: "GET",
    path: "/v1/sessions/{id}",
    summary: "A session with its status",
    auth: "bearer",
    answer: answer<SessionDetail>(200, "record + status"),
  },
  renameSession: {
    method: "PATCH",
    path: "/v1/sessions/{id}",
    summary: "Rename a session (`title`: 1 to 200 characters)",
    auth: "bearer",
    body: jsonBody(RenameSessionBody, "session rename", true),
    answer: answer<SessionInfo>(200, "The session record with its new title"),
  },
  deleteSession: {
    method: "DELETE",
    path: "/v1/sessions/{id}",
    summary: "Delete a session (state, events, record)",
    auth: "bearer",
    answer: answer<undefined>(204, "deleted"),
  },
  messages: {
    method: "GET",
    path: "/v1/sessions/{id}/messages",
    summary: "Message history",
    auth: "bearer",
    answer: answer<{ messages: Msg[] }>(200, "`{ messages: Msg[] }`"),
  },
  decisions: {
    method: "GET",
    path: "/v1/sessions/{id}/decisions",
    summary: "The session's decision records (who approved, denied or edited what, under which rule)",
    auth: "bearer",
    answer: answer<DecisionList>(200, "`{ decisions: DecisionRecord[] }`, oldest first"),
  },
  exportDecisions: {
    method: "GET",
    path: "/v1/decisions",
    summary:
      "Audit export: the decision records of a user's sessions (or one session) in a period, as JSON Lines or CSV",
    auth: "bearer",
    query: {
      user: {
        type: "string",
        description: "whose sessions (default: the caller's; another user's needs the admin role)",
      },
      session: { type: "string", description: "only this session's records" },
      from: { type: "string", description: "records at or after this time (ISO 8601)" },
      to: { type: "string", description: "records before this time (ISO 8601)" },
      format: { type: "string", description: "`jsonl` (default) or `csv`" },
    },
    answer: answer<undefined>(
      200,
      "`application/x-ndjson` (one record per line) or `text/csv`, oldest first; each record adds its `sessionId`",
      "bytes",
    ),
  },
  status: {
    method: "GET",
    path: "/v1/sessions/{id}/status",
    summary: "Running, waiting (and for which calls) or idle",
    auth: "bearer",
    answer: answer<SessionStatus>(200, "SessionStatus"),
  },
  events: {
    method: "GET",
    path: "/v1/sessions/{id}/events",
    summary: "The session's event stream (SSE), resumable",
    auth: "bearer",
    query: { after: { type: "integer", minimum: 0, description: "events after this id" } },
    headers: { "Last-Event-ID": "events after this id (wins over `after`)" },
    answer: answer<never>(
      200,
      "SSE frames; `: keep-alive` comments; `event: gap` if older events were trimmed",
      "sse",
    ),
    alsoAnswers: [{ status: 429, description: "the user's open-stream limit (Retry-After)" }],
  },
} as const satisfies Record<string, Route>;
