import { SPAWNS_KEY, type SpawnRecord } from "../../../multiagent/index.js";
import { RequestError } from "../request-error.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import { adoptedRecord } from "./adopt-children.js";
import { settleFromChild } from "./child-outcome.js";
import { parentOfSession } from "./child-session.js";
import type { PendingDelivery } from "./spawn-deliveries.js";

/**
 * What one attempt at handing a sub-agent's outcome to its parent came to: `done` (read, or moot:
 * a session is gone, the parent reads it at its next reply by itself, it is paused and reads it
 * once answered), `busy` (the parent's run holds it: its next step reads the outcome, else try
 * again when it ends), `waiting` (the sub-agent has not ended), `started` (a follow-up reply).
 */
export type DeliveryOutcome = "done" | "busy" | "waiting" | "started";

/**
 * One attempt at delivering: when the sub-agent has ended and its parent has neither read its
 * outcome nor a run going, start a follow-up reply in the parent session (it reads the outcome as a
 * hint before its first step; a record the parent lost in a crash is adopted by it). Safe to repeat
 * and to run on any replica: the parent's lease lets one follow-up run at a time, and a delivered
 * record (saved by that reply) ends the repeats.
 */
export async function deliverOutcome(
  runtime: ServiceRuntime,
  followUp: (agent: string) => boolean,
  entry: PendingDelivery,
): Promise<DeliveryOutcome> {
  const { backend } = runtime;
  const named = parentOfSession(entry.childSessionId);
  const parent = await backend.sessions.get(entry.parentSessionId);
  if (!named || !parent) return "done";
  if (!followUp(parent.agent)) return "done";
  if (await backend.locks.isHeld(parent.sessionId)) return "busy";
  const stored = await backend.store.load(parent.sessionId);
  if (!stored || stored.state.replyContext?.waitingFor) return "done";
  const records = stored.state.toolContext[SPAWNS_KEY] as SpawnRecord[] | undefined;
  let record = records?.find((r) => r.id === named.subagentId);
  if (record?.delivered) return "done";
  if (!record) {
    const child = await backend.sessions.get(entry.childSessionId);
    if (!child) return "done"; // the spawn never created it: nothing ran
    const [state, held] = await Promise.all([
      backend.store.load(entry.childSessionId),
      backend.locks.isHeld(entry.childSessionId),
    ]);
    record = adoptedRecord(named.subagentId, child, state?.state, held, parent);
  }
  if (record.status === "running" && !(await settleFromChild(backend, { ...record }))) return "waiting";
  try {
    await runtime.startReply(parent.owner, parent.sessionId, undefined);
    return "started";
  } catch (error) {
    if (RequestError.isInstance(error) && error.info.type === "run_in_progress") return "busy";
    throw error;
  }
}
