import type { Middleware } from "../../agent/index.js";
import { newId } from "../../message/index.js";
import { TASK_UPDATED } from "../../protocol/task.js";
import { TaskBoard } from "../../tool/index.js";
import type { SpawnHost } from "./spawn-host.js";
import { settleTask } from "./spawn-tasks.js";
import { outcomeText } from "./spawned-run.js";

/**
 * Before each reasoning step of a parent, the outcome of each of its sub-agents that ended since
 * (and reached it no other way) goes into the reply as a hint the model reads next; a task it was
 * assigned follows its outcome (a `task_updated` event).
 */
export function spawnHints(spawner: SpawnHost): Middleware {
  return {
    name: "agentscope.spawn",
    async beforeReasoning(_iteration, ctx) {
      await spawner.refresh?.(ctx.state.toolContext, ctx.state.sessionId);
      const records = spawner.records(ctx.state.toolContext, ctx.state.sessionId);
      let board: TaskBoard | undefined;
      for (const record of records) {
        if (record.status === "running" || record.delivered) continue;
        record.delivered = true;
        board ??= new TaskBoard(ctx.state.tasks, (update) =>
          ctx.emit({ type: "CUSTOM", name: TASK_UPDATED, value: update }),
        );
        settleTask(board, record);
        ctx.emit({ type: "HINT_BLOCK", blockId: newId("hint"), text: outcomeText(record) });
      }
    },
  };
}
