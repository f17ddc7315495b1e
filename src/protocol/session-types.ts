import type { ToolCallBlock } from "../message/index.js";

/** A session as the service lists it: who owns it and which agent answers in it. */
export interface SessionInfo {
  sessionId: string;
  owner: string;
  agent: string;
  title?: string;
  /** ISO 8601. */
  createdAt: string;
  /**
   * A session started by another session of the same owner: a sub-agent spawned with
   * `expose_to_user` (`subagentId`, the parent's `toolCallId`, the spawn's `label`).
   */
  parent?: SessionParent;
}

/** The session (and the call in it) that started a sub-agent session. */
export interface SessionParent {
  sessionId: string;
  toolCallId?: string;
  subagentId?: string;
  label?: string;
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

/** `GET /v1/health`. */
export interface ServiceHealth {
  status: string;
  backend: string;
  agents: string[];
}

/** `GET /v1/agents`: the agents this server offers, with the sub-agents and team members each can call. */
export interface AgentList {
  agents: Array<{ name: string; subagents?: string[]; members?: string[] }>;
}
