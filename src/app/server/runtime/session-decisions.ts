import { type DecisionRecord, decisionsIn } from "../../../event/index.js";
import type { ServiceBackend } from "../backend/types.js";

const PAGE = 1_000;

/**
 * Every decision record in the session's event log, oldest first, nested runs' included (their
 * records carry `source`). The log keeps the newest `maxEvents` events of a session: older
 * records are gone with the events that carried them.
 */
export async function sessionDecisions(
  backend: ServiceBackend,
  sessionId: string,
): Promise<DecisionRecord[]> {
  const out: DecisionRecord[] = [];
  let after = Math.max(0, (await backend.events.firstSeq(sessionId)) - 1);
  for (;;) {
    const page = await backend.events.read(sessionId, after, PAGE);
    out.push(...decisionsIn(page.map((logged) => logged.event)));
    if (page.length < PAGE) return out;
    after = page.at(-1)!.seq;
  }
}
