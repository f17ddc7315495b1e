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

/** One note the `Memory` tool keeps (`GET /v1/memories/notes`). */
export interface MemoryNote {
  /** As the agent sees it, e.g. `/memories/prefs.md`. */
  path: string;
  size: number;
  text: string;
}

/** `GET /v1/memories/notes`: `enabled` is false when the service keeps no notes. */
export interface MemoryNotes {
  enabled: boolean;
  files: MemoryNote[];
}

/** `DELETE /v1/memories`: how many memories were forgotten. */
export interface ForgetResult {
  deleted: number;
}
