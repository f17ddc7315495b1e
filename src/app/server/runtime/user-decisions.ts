import type { ExportedDecision } from "../../../protocol/index.js";
import type { ServiceBackend } from "../backend/types.js";
import { sessionDecisions } from "./session-decisions.js";

const SESSIONS_PER_PAGE = 500;

/** A period of the export: records at or after `from` and before `to` (ms since the epoch); either may be open. */
export interface DecisionPeriod {
  from?: number;
  to?: number;
}

/**
 * The audit export of one owner: the decision records of each of their sessions (`sessions`: only
 * those) that fall in `period`, each with its session id, oldest first (records of one session stay
 * in their log order when two share a time). As `GET /v1/sessions/:id/decisions`, only what the
 * session logs still hold.
 */
export async function userDecisions(
  backend: ServiceBackend,
  owner: string,
  period: DecisionPeriod,
  sessions?: readonly string[],
): Promise<ExportedDecision[]> {
  const ids = sessions ? [...sessions] : await sessionIdsOf(backend, owner);
  const out: ExportedDecision[] = [];
  for (const sessionId of ids) {
    for (const record of await sessionDecisions(backend, sessionId)) {
      const at = Date.parse(record.createdAt);
      if (period.from !== undefined && at < period.from) continue;
      if (period.to !== undefined && at >= period.to) continue;
      out.push({ ...record, sessionId });
    }
  }
  // stable: a session's records keep their log order among equal times
  return out.sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
}

async function sessionIdsOf(backend: ServiceBackend, owner: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await backend.sessions.list(owner, {
      limit: SESSIONS_PER_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    ids.push(...page.sessions.map((s) => s.sessionId));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}
