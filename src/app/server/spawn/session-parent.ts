import type { SessionInfo, SessionParent } from "../../../protocol/index.js";
import type { AgentState } from "../../../state/index.js";
import type { ServiceBackend, SessionRecord, SessionRecordPage } from "../backend/types.js";
import { PARENT_KEY, type ParentLink, parentOfSession } from "./child-session.js";

/**
 * A spawned sub-agent's session with its `parent` (the session and the call that spawned it), as
 * GET /v1/sessions and GET /v1/sessions/:id show it. The link is read from the id (`<parent>.sub_n`)
 * and holds only when the parent is a session of the same owner; the label is the session's title
 * (as the spawn named it); the state, when the caller has it, adds the parent's call id.
 */
export function withParent(
  record: SessionRecord,
  parentOwner: string | undefined,
  state?: AgentState,
): SessionInfo {
  const named = parentOfSession(record.sessionId);
  if (!named || parentOwner !== record.owner) return record;
  const link = state?.toolContext[PARENT_KEY] as ParentLink | undefined;
  const parent: SessionParent = {
    sessionId: named.sessionId,
    subagentId: named.subagentId,
    ...(link?.toolCallId ? { toolCallId: link.toolCallId } : {}),
    ...((link?.label ?? record.title) ? { label: link?.label ?? record.title! } : {}),
  };
  return { ...record, parent };
}

/** A page of sessions, each sub-agent session with its `parent` (a parent outside the page is looked up). */
export async function pageWithParents(
  backend: ServiceBackend,
  page: SessionRecordPage,
): Promise<{ sessions: SessionInfo[]; nextCursor?: string }> {
  const owners = new Map(page.sessions.map((s) => [s.sessionId, s.owner] as const));
  const sessions = await Promise.all(
    page.sessions.map(async (record) => {
      const named = parentOfSession(record.sessionId);
      if (!named) return record;
      if (!owners.has(named.sessionId))
        owners.set(named.sessionId, (await backend.sessions.get(named.sessionId))?.owner ?? "");
      return withParent(record, owners.get(named.sessionId));
    }),
  );
  return page.nextCursor ? { sessions, nextCursor: page.nextCursor } : { sessions };
}

/** `withParent` for one session, its parent's owner and its own state (the spawning call) looked up. */
export async function sessionWithParent(
  backend: ServiceBackend,
  record: SessionRecord,
): Promise<SessionInfo> {
  const named = parentOfSession(record.sessionId);
  if (!named) return record;
  const [parent, stored] = await Promise.all([
    backend.sessions.get(named.sessionId),
    backend.store.load(record.sessionId),
  ]);
  return withParent(record, parent?.owner, stored?.state);
}
