import type { ConfirmResult } from "../event/types.js";
import type { Msg, ToolCallBlock, ToolResultBlock } from "../message/index.js";

/** A session as the service lists it: who owns it and which agent answers in it. */
export interface SessionInfo {
  sessionId: string;
  owner: string;
  agent: string;
  title?: string;
  /** ISO 8601. */
  createdAt: string;
}

/** One page of `GET /v1/sessions`; pass `nextCursor` back as `cursor` for the next page. */
export interface SessionPage {
  sessions: SessionInfo[];
  nextCursor?: string;
}

/** Where a session stands (`GET /v1/sessions/:id/status`). */
export interface SessionStatus {
  sessionId: string;
  agent: string;
  /** A run holds the session (on any replica). */
  running: boolean;
  waitingFor?: "user_confirm" | "external_execution";
  /** The reply in flight (running, paused or cut off). */
  replyId?: string;
  /** Calls waiting for a confirmation (`asking`) or an external result (`submitted`). */
  pendingToolCalls: ToolCallBlock[];
  /** The newest event id in the session's log (0 when none). */
  lastEventId: number;
  messageCount: number;
}

/** `GET /v1/sessions/:id`: the record and its status. */
export type SessionDetail = SessionInfo & { status: SessionStatus };

export interface CreateSessionOptions {
  /** Choose the id; default a fresh one. */
  sessionId?: string;
  /** Which configured agent answers; default the service's first. */
  agent?: string;
  title?: string;
}

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

/** What `send` takes: plain text (one user message), one user Msg or several. */
export type SendInput = string | Msg | Msg[];

/** `POST /v1/sessions/:id/interrupt`: what the session was doing when asked to stop. */
export interface InterruptResult {
  was: string;
  replyId?: string;
  after?: number;
}

/** `GET /v1/health`. */
export interface ServiceHealth {
  status: string;
  backend: string;
  agents: string[];
}

/** A long-term memory the service keeps for the user (`GET /v1/memories`). */
export interface MemoryRecord {
  id: string;
  userId: string;
  /** The agent that wrote it; absent = shared by all of the user's agents. */
  agentId?: string;
  kind: "fact" | "preference";
  text: string;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
  source?: { sessionId?: string; replyId?: string };
}

/** `GET /v1/memories`: `enabled` is false when the service keeps no long-term memory. */
export interface MemoryList {
  enabled: boolean;
  memories: MemoryRecord[];
}

/** One entry of a session's workspace listing (`GET /v1/sessions/:id/workspace/files`). */
export interface WorkspaceEntry {
  /** Relative to the workspace root, `/`-separated. */
  path: string;
  /** A symlink is listed, not followed. */
  type: "file" | "directory" | "symlink" | "other";
  /** Bytes (files); 0 for the rest. */
  size: number;
  /** ISO 8601. */
  modifiedAt: string;
}

/** A directory of a session's workspace; `truncated` when the service cut it at its limit (5,000). */
export interface WorkspaceListing {
  /** The directory listed, as asked (`.` = the root). */
  path: string;
  /** Sorted by path. */
  entries: WorkspaceEntry[];
  truncated: boolean;
}
