import type { ServiceBackend, SessionRecord, SessionRecordPage } from "../backend/types.js";
import { RequestError, sessionNotFound } from "../request-error.js";

/** The record if `user` owns it; otherwise (or none) the session is "not found". */
export function ownedRecord(
  record: SessionRecord | undefined,
  user: string,
  sessionId: string,
): SessionRecord {
  if (!record || record.owner !== user) throw sessionNotFound(sessionId);
  return record;
}

/** A page of the user's sessions: `limit` between 1 and 500 (default 50). */
export function listOwnSessions(
  backend: ServiceBackend,
  user: string,
  options: { limit?: number; cursor?: string },
): Promise<SessionRecordPage> {
  const limit = Math.min(Math.max(options.limit ?? 50, 1), 500);
  return backend.sessions.list(user, { limit, ...(options.cursor ? { cursor: options.cursor } : {}) });
}

/**
 * Deletes the session's state, log and record, then calls `forget` (what this replica keeps of it);
 * a running session is refused (`run_in_progress`).
 */
export async function deleteOwnedSession(
  backend: ServiceBackend,
  sessionId: string,
  forget: { feeds: () => void; rest: () => Promise<void> },
): Promise<void> {
  if (await backend.locks.isHeld(sessionId))
    throw new RequestError(
      "run_in_progress",
      `session "${sessionId}" is running a reply; interrupt it first`,
    );
  await backend.store.delete(sessionId);
  await backend.events.delete(sessionId);
  forget.feeds();
  await backend.sessions.delete(sessionId);
  await forget.rest();
}
