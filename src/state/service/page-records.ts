import type { SessionRecord, SessionRecordPage } from "./service-backend.js";

/** Turns `limit + 1` rows into a page: the extra row only says that more follow. */
export function pageRecords(rows: SessionRecord[], limit: number): SessionRecordPage {
  const sessions = rows.slice(0, limit);
  const last = sessions.at(-1);
  return rows.length > limit && last ? { sessions, nextCursor: last.sessionId } : { sessions };
}
