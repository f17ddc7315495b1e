import type { AgentState } from "./agent-state.js";

/** A saved state with the version the store gave it. */
export interface StoredState {
  state: AgentState;
  /** 1 after the first save, +1 per save. */
  version: number;
}

export interface SaveOptions {
  /** The version the caller last loaded; 0 = the session must not exist yet. */
  expectedVersion: number;
}

export interface ListOptions {
  /** Page size; default 100, at most 1,000. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

export interface SessionSummary {
  sessionId: string;
  version: number;
  /** ISO 8601 time of the last save. */
  updatedAt: string;
}

export interface SessionPage {
  sessions: SessionSummary[];
  /** Present when more sessions follow; pass it as `cursor` to get them. */
  nextCursor?: string;
}

/**
 * Durable home of agent states, one per session id, with compare-and-set so two processes never
 * overwrite each other silently. Every implementation passes test/state/store-contract.ts:
 * - `load` validates with `parseAgentState`: a corrupt state throws a ValidationError naming the
 *   session and the bad field, never a silent reset. Unknown session: `undefined`.
 * - `save` writes only if the stored version equals `expectedVersion` (0 = absent), atomically, and
 *   returns the new version (expectedVersion + 1); otherwise it throws `StateConflictError` and
 *   changes nothing. `state.sessionId` must equal `sessionId`; strings must be well-formed Unicode
 *   without U+0000 (`StateEncodingError` otherwise; see `replaceUnstorableChars`).
 * - `delete` removes the session (true if it existed); a later save starts again at expectedVersion 0.
 * - `list` pages through all sessions in a stable order (by session id); each appears exactly once.
 * - `close` releases what the store opened itself; a client passed in by the caller is left open.
 *
 * The SQLite, Redis, PostgreSQL and MySQL stores write what changed since they last saved or loaded
 * the same state object (a patch: the messages from the first that changed, and the other fields that
 * changed), and the whole state now and then (`CompactionPolicy`); see `SaveTracker`. So a caller
 * that keeps its state object between saves must change only its last Msg in place below the Msg's
 * content array (replace an older Msg or its content array instead, or add or remove its blocks):
 * the agent does. A state object the store has not seen is saved whole.
 */
export interface AgentStateStore {
  load(sessionId: string): Promise<StoredState | undefined>;
  save(sessionId: string, state: AgentState, options: SaveOptions): Promise<{ version: number }>;
  delete(sessionId: string): Promise<boolean>;
  list(options?: ListOptions): Promise<SessionPage>;
  close(): Promise<void>;
}
