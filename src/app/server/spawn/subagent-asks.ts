import { SPAWNS_KEY, type SpawnRecord } from "../../../multiagent/index.js";
import type { ServiceBackend } from "../backend/types.js";
import { type OpenAsk, openAsks } from "../runtime/open-asks.js";

/** How deep spawned sessions are searched for asks (a sub-agent's own spawns count one deeper). */
const MAX_DEPTH = 4;

/**
 * Everything that waits on a person in session `sessionId` and below it: its own asks and its nested
 * runs' (`openAsks`), then those of the sub-agent sessions it spawned that still run or are paused
 * (`<parent>.sub_<n>`, found from the spawn records in its state; each ask keeps the `subagentId`
 * of the spawn under the session that asks it). An answer goes to the ask's own session.
 */
export async function sessionAsks(backend: ServiceBackend, sessionId: string, depth = 0): Promise<OpenAsk[]> {
  const stored = await backend.store.load(sessionId);
  if (!stored) return [];
  const asks = await openAsks(backend, sessionId, stored.state);
  if (depth >= MAX_DEPTH) return asks;
  const records = (stored.state.toolContext[SPAWNS_KEY] as SpawnRecord[] | undefined) ?? [];
  for (const record of records) {
    if (record.status !== "running" && record.status !== "paused") continue;
    for (const ask of await sessionAsks(backend, record.sessionId, depth + 1))
      asks.push(
        ask.subagentId || ask.sessionId !== record.sessionId ? ask : { ...ask, subagentId: record.id },
      );
  }
  return asks;
}
