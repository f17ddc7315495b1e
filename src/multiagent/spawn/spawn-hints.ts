import type { Middleware } from "../../agent/index.js";
import { newId } from "../../message/index.js";
import type { SpawnHost } from "./spawn-host.js";
import { outcomeText } from "./spawned-run.js";

/**
 * Before each reasoning step of a parent, the outcome of each of its sub-agents that ended since
 * (and reached it no other way) goes into the reply as a hint the model reads next.
 */
export function spawnHints(spawner: SpawnHost): Middleware {
  return {
    name: "agentscope.spawn",
    beforeReasoning(_iteration, ctx) {
      const records = spawner.records(ctx.state.toolContext, ctx.state.sessionId);
      for (const record of records) {
        if (record.status === "running" || record.delivered) continue;
        record.delivered = true;
        ctx.emit({ type: "HINT_BLOCK", blockId: newId("hint"), text: outcomeText(record) });
      }
    },
  };
}
