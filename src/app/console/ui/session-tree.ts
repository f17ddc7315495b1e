import type { SessionInfo } from "../../../client/index.js";
import type { AgentEvent } from "../../../event/types.js";

/** A row of the sidebar: a session and how deep it sits under the sessions that started it. */
export interface SessionRow {
  session: SessionInfo;
  depth: number;
  parent?: SessionInfo;
}

/**
 * Orders sessions as a tree: each session with a `parent` in the list right after that parent
 * (children oldest first, at any depth), one level deeper; the others in the order given. A
 * sub-agent session whose parent is not in the list is a top-level row.
 */
export function nestSessions(sessions: readonly SessionInfo[]): SessionRow[] {
  const listed = new Map(sessions.map((s) => [s.sessionId, s]));
  const children = new Map<string, SessionInfo[]>();
  const roots: SessionInfo[] = [];
  for (const session of sessions) {
    const parentId = session.parent?.sessionId;
    if (parentId && parentId !== session.sessionId && listed.has(parentId)) {
      const list = children.get(parentId) ?? [];
      list.push(session);
      children.set(parentId, list);
    } else roots.push(session);
  }
  const rows: SessionRow[] = [];
  const seen = new Set<string>();
  const visit = (session: SessionInfo, depth: number, parent?: SessionInfo) => {
    if (seen.has(session.sessionId)) return; // a cycle of parents: each session once
    seen.add(session.sessionId);
    rows.push({ session, depth, ...(parent ? { parent } : {}) });
    const kids = (children.get(session.sessionId) ?? []).sort((a, b) =>
      a.createdAt.localeCompare(b.createdAt),
    );
    for (const kid of kids) visit(kid, depth + 1, session);
  };
  for (const root of roots) visit(root, 0);
  // Sessions only reachable through a cycle of parents are still shown.
  for (const session of sessions) visit(session, 0);
  return rows;
}

/**
 * The session a SUBAGENT_EXPOSED event of session `parent` exposes to the user (the event names
 * its `sessionId`), as the sidebar lists it until the service's list has it; undefined for events
 * that expose no session.
 */
export function exposedSession(event: AgentEvent, parent: SessionInfo): SessionInfo | undefined {
  if (event.type !== "SUBAGENT_EXPOSED" || !event.sessionId || event.sessionId === parent.sessionId)
    return undefined;
  const label = event.label;
  return {
    sessionId: event.sessionId,
    owner: parent.owner,
    agent: event.agentId ?? event.name,
    createdAt: event.createdAt,
    parent: {
      sessionId: parent.sessionId,
      toolCallId: event.toolCallId,
      ...(event.subagentId ? { subagentId: event.subagentId } : {}),
      ...(label ? { label } : {}),
    },
  };
}

/**
 * Adds the session a SUBAGENT_EXPOSED event of the open session exposes to `sessions`, when the
 * list lacks it (the live entry, until the service's list has it). Says whether it did.
 */
export function addExposedSession(
  sessions: SessionInfo[],
  event: AgentEvent,
  current: SessionInfo | undefined,
): boolean {
  const exposed = current && exposedSession(event, current);
  if (!exposed || sessions.some((s) => s.sessionId === exposed.sessionId)) return false;
  sessions.push(exposed);
  return true;
}
