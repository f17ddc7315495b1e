/**
 * A spawned sub-agent's session id is its parent's with the spawn's id after a dot
 * (`<parent>.sub_1`), so the link to the parent is part of the id every store keeps.
 */
export function childSessionId(parentSessionId: string, subagentId: string): string {
  return `${parentSessionId}.${subagentId}`;
}

const CHILD = /^(.+)\.(sub_[1-9][0-9]*)$/;

/** The parent session and spawn id a sub-agent session's id names, if it is one. */
export function parentOfSession(sessionId: string): { sessionId: string; subagentId: string } | undefined {
  const match = CHILD.exec(sessionId);
  return match ? { sessionId: match[1]!, subagentId: match[2]! } : undefined;
}

/** Where a sub-agent session keeps its link to its parent (its tool data). */
export const PARENT_KEY = "agentscope.parent";

/** What a sub-agent session knows of its parent (`state.toolContext["agentscope.parent"]`). */
export interface ParentLink {
  sessionId: string;
  toolCallId: string;
  subagentId: string;
  label: string;
  /** The spawn's template and exposure, so a parent that lost its record can rebuild it. */
  template?: string;
  exposed?: boolean;
  taskId?: string;
}
