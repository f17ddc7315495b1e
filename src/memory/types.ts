import type { Msg, Usage } from "../message/index.js";

/**
 * Whose memories a call may touch. `userId` is required on every call. Writes are tagged with the
 * scope's `agentId` (absent = shared by all of the user's agents). Reads with an `agentId` see that
 * agent's memories plus the user's shared ones; reads without one see all of the user's memories.
 * No call ever sees or changes another user's memories.
 */
export interface MemoryScope {
  userId: string;
  agentId?: string;
}

/** A fact about the user or the world, or a preference of the user's. */
export type MemoryKind = "fact" | "preference";

/** One remembered item, as plain JSON (what `GET /v1/memories` returns). */
export interface MemoryRecord {
  id: string;
  userId: string;
  /** The agent that wrote it; absent = shared by all of the user's agents. */
  agentId?: string;
  kind: MemoryKind;
  /** One self-contained sentence, e.g. "Prefers answers in French". */
  text: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601; changes when a newer statement replaced the text. */
  updatedAt: string;
  /** Where it was learned. */
  source?: { sessionId?: string; replyId?: string };
}

/** A retrieved memory with its similarity to the query (higher is closer). */
export interface ScoredMemory extends MemoryRecord {
  score: number;
}

/** Which memories `forget` removes: these ids and/or every memory of this kind (within the scope). */
export interface MemoryFilter {
  ids?: string[];
  kind?: MemoryKind;
}

export interface RecordOptions {
  signal?: AbortSignal;
  /** Where the messages come from (kept on new records). */
  source?: MemoryRecord["source"];
}

/** What one `record` call changed, and what it cost. */
export interface RecordResult {
  added: MemoryRecord[];
  /** Records whose text was replaced by a newer statement (contradictions replace older facts). */
  updated: MemoryRecord[];
  /** Ids of records removed because the exchange said they no longer hold. */
  deleted: string[];
  /** Tokens of the extraction model call(s). */
  usage: Usage;
  /** Tokens of the embedding call(s). */
  embeddingTokens: number;
}

export interface ListOptions {
  /** Only memories of these kinds (default: every kind). */
  kinds?: readonly MemoryKind[];
}

export interface RetrieveOptions {
  /** How many memories at most (default 5). */
  topK?: number;
  /** Drop memories scored below this. */
  minScore?: number;
  signal?: AbortSignal;
}

/**
 * Memory kept across sessions. Every method validates `scope` (a missing or empty `userId` throws
 * a TypeError) and confines itself to it (see `MemoryScope`).
 * - `record` learns from an exchange: extracts durable facts and preferences, reconciles them with
 *   what is stored (add, update on contradiction, delete; never a duplicate) and stores them.
 * - `retrieve` returns up to `topK` memories most relevant to `query`, best first.
 * - `list` returns every memory the scope can read (of `kinds`, when given), oldest first.
 * - `forget` removes one id or every match of a filter, within the scope; returns how many went.
 *   Forgetting an id the scope cannot read removes nothing (0), it never reveals that it exists.
 */
export interface LongTermMemory {
  record(msgs: Msg[], scope: MemoryScope, options?: RecordOptions): Promise<RecordResult>;
  retrieve(query: string, scope: MemoryScope, options?: RetrieveOptions): Promise<ScoredMemory[]>;
  list(scope: MemoryScope, options?: ListOptions): Promise<MemoryRecord[]>;
  forget(target: string | MemoryFilter, scope: MemoryScope): Promise<number>;
}
