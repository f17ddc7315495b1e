import type { SpawnRecord } from "../../../multiagent/index.js";
import type { AgentState } from "../../../state/index.js";
import type { ServiceBackend, SessionRecord } from "../backend/types.js";
import { childSessionId, PARENT_KEY, type ParentLink } from "./child-session.js";

/**
 * The record of a sub-agent session its parent has none of: the process died after the spawn
 * created the session (and maybe started its reply) but before the parent's state, with the new
 * record, was saved. Running when its reply started (it resumes and ends like any sub-agent);
 * `failed` when it never got its prompt, or the session is not the parent's.
 */
export function adoptedRecord(
  id: string,
  session: SessionRecord,
  state: AgentState | undefined,
  held: boolean,
  parent: { sessionId: string; owner: string },
): SpawnRecord {
  const link = state?.toolContext[PARENT_KEY] as ParentLink | undefined;
  const record: SpawnRecord = {
    id,
    label: link?.label ?? session.title ?? id,
    template: link?.template ?? session.agent,
    agent: session.agent,
    sessionId: session.sessionId,
    status: "running",
    toolCallId: link?.toolCallId ?? "",
    replyId: "",
    background: true,
    ...(link?.taskId ? { taskId: link.taskId } : {}),
    ...(link?.exposed ? { exposed: true } : {}),
    delivered: false,
    startedAt: session.createdAt,
  };
  const fail = (error: string) => ({
    ...record,
    status: "failed" as const,
    error,
    endedAt: new Date().toISOString(),
  });
  if (session.owner !== parent.owner || (link && link.sessionId !== parent.sessionId))
    return fail("not started: its session id is taken by another session");
  const started =
    held || (state !== undefined && (state.context.length > 0 || state.replyContext !== undefined));
  if (!link || !started)
    return fail(
      "the service stopped while starting it, before it got its prompt; spawn it again if it is still needed",
    );
  return record;
}

/**
 * Gives the parent's records the sub-agent sessions that exist at the next ids though no record
 * names them (see `adoptedRecord`), so their outcomes reach the parent and their ids are not
 * handed out again. A spawn of the same reply that takes the next id meanwhile is stepped past.
 */
export async function adoptOrphans(
  backend: ServiceBackend,
  records: SpawnRecord[],
  parent: { sessionId: string; owner: string },
): Promise<void> {
  for (;;) {
    const next = records.length + 1;
    const id = `sub_${next}`;
    const sessionId = childSessionId(parent.sessionId, id);
    const session = await backend.sessions.get(sessionId);
    if (records.length + 1 !== next) continue; // a spawn took the id meanwhile: look at the next one
    if (!session) return;
    const [stored, held] = await Promise.all([
      backend.store.load(sessionId),
      backend.locks.isHeld(sessionId),
    ]);
    if (records.length + 1 !== next) continue;
    records.push(adoptedRecord(id, session, stored?.state, held, parent));
  }
}
