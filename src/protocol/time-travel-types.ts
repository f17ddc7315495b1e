import type { SessionInfo } from "./session-types.js";

/** A checkpoint as the service shows it (`GET /v1/sessions/:id/checkpoints`); docs/time-travel.md. */
export interface CheckpointInfo {
  /** `cp-<seq>`: what rewind, fork and the console name it by. */
  id: string;
  seq: number;
  kind: "start" | "reply_end" | "pause" | "rewind" | "fork" | "manual";
  /** ISO 8601. */
  createdAt: string;
  branch: string;
  parent?: string;
  stateVersion: number;
  logSeq?: number;
  /** Messages in the conversation at this point, and the last one (its text cut to 200 characters). */
  messages: number;
  lastMessage?: { id: string; role: string; text: string };
  waitingFor?: "user_confirm" | "external_execution";
  /** Absent: the session has no workspace snapshots (state only). `pruned`: it cannot be restored. */
  workspace?:
    | { status: "kept"; files: number; bytes: number; skipped: number }
    | { status: "pruned"; files: number; bytes: number; prunedAt: string };
  grants: Array<{
    toolName: string;
    ruleContent?: string;
    behavior: "allow" | "deny" | "ask";
    source: string;
  }>;
  /** Memory writes made since the checkpoint before it: kept by a rewind unless it asks `memory: "revert"`. */
  memoryWrites: Array<{ toolCallId: string; command: string; path?: string }>;
  addedBytes: number;
}

/** `GET /v1/sessions/:id/checkpoints`: oldest first, and where the session is. */
export interface CheckpointList {
  checkpoints: CheckpointInfo[];
  /** The branch the session is on and the checkpoint its next one follows. */
  head: {
    branch: string;
    at?: string;
    origin?: { sessionId: string; checkpoint: string };
    branches: Record<string, { from?: string; createdAt: string }>;
  };
  /** Whether checkpoints include the workspace files (a per-session workspace). */
  files: boolean;
  /** Whether checkpoints snapshot the agent's memory notes, so a rewind can revert memory writes. */
  memory?: boolean;
}

/** `POST /v1/sessions/:id/rewind`. */
export interface RewindAnswer {
  /** The checkpoint the session is back at. */
  checkpoint: string;
  /** Rewind to this checkpoint to undo the rewind. */
  undo: string;
  branch: string;
  /** Messages in the conversation now. */
  messages: number;
  files?: { written: number; removed: number };
  /** A paused reply the rewind closed. */
  closedReply?: string;
  /** With `memory: "revert"`: the memory notes put back as they were (paths relative to the memory root). */
  memoryReverted?: string[];
}

/** `POST /v1/sessions/:id/fork`: the new session, and where it came from. */
export interface ForkAnswer {
  session: SessionInfo;
  origin: { sessionId: string; checkpoint: string };
  checkpoint: string;
}
