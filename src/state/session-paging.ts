import type { ListOptions, SessionPage, SessionSummary } from "./store.js";

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** The page size and the session id to continue after, from `list` options. */
export function readListOptions(options: ListOptions = {}): { limit: number; after?: string } {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new TypeError(`list: limit must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${String(limit)}`);
  }
  if (options.cursor === undefined) return { limit };
  return { limit, after: decodeCursor(options.cursor) };
}

function encodeCursor(sessionId: string): string {
  return Buffer.from(sessionId, "utf8").toString("base64url");
}

function decodeCursor(cursor: string): string {
  const sessionId = typeof cursor === "string" ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  if (sessionId === "" || encodeCursor(sessionId) !== cursor) {
    throw new TypeError("list: the cursor is not one this store returned; start again without a cursor");
  }
  return sessionId;
}

/** Builds a page from up to `limit + 1` summaries fetched in order after the cursor. */
export function toPage(fetched: SessionSummary[], limit: number): SessionPage {
  if (fetched.length <= limit) return { sessions: fetched };
  const sessions = fetched.slice(0, limit);
  return { sessions, nextCursor: encodeCursor(sessions[limit - 1]!.sessionId) };
}

/** Orders session ids by UTF-16 code units (what `<` does), the order in-process stores list in. */
export function compareSessionIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One page of summaries held in memory, in session id order. */
export function pageOf(all: Iterable<SessionSummary>, options?: ListOptions): SessionPage {
  const { limit, after } = readListOptions(options);
  const sorted = [...all]
    .filter((s) => after === undefined || s.sessionId > after)
    .sort((a, b) => compareSessionIds(a.sessionId, b.sessionId));
  return toPage(sorted.slice(0, limit + 1), limit);
}
